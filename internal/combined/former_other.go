//go:build !linux

package combined

import "github.com/hookwire/hookwire/internal/install"

// formerCheck: the warm path ran only on Linux, so nothing of it is left
// here.
var formerCheck install.Check
