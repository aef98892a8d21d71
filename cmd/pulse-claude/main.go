// Command pulse-claude sends a coding agent's hook events to the noctalia
// Pulse bar, with the session's exact token burn.
package main

import (
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/pulse"
)

func main() { hook.Main(pulse.Claude()) }
