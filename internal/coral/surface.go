package coral

import "github.com/hookwire/hookwire/internal/install"

// Surface is what coral-pulse installs and what its doctor checks of its
// target: for a binary that serves several surfaces (cmd/hookwire).
func Surface() (install.Spec, install.Check) { return hooks, sessionCheck }
