package pulse

import "github.com/hookwire/hookwire/internal/install"

// ClaudeSurface is what pulse-claude installs and what its doctor checks of its
// target: for a binary that serves several surfaces (cmd/hookwire).
func ClaudeSurface() (install.Spec, install.Check) { return claudeHooks, noctaliaCheck }
