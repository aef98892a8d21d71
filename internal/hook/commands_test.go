package hook_test

import (
	"testing"

	"github.com/hookwire/hookwire/internal/combined"
	"github.com/hookwire/hookwire/internal/hook"
)

// hookwire builds its commands for a person only when an argument may name
// one: every one of them must be such an argument, or `hookwire NAME` would
// run as a hook. What the hook lines install and setup write carry must
// not be, or every event would build them again.
func TestMayNameCommand(t *testing.T) {
	c := combined.Hookwire()
	for _, given := range [][]string{nil, {"nb-hook"}, {"pulse-claude", "coral-pulse"}} {
		for _, cmd := range c.Commands(given) {
			if !hook.MayNameCommand([]string{cmd.Name}) || !hook.MayNameCommand([]string{"--agent", "claude", cmd.Name}) {
				t.Errorf("%s (--surfaces %q) is not taken for a command's name", cmd.Name, given)
			}
		}
	}
	for _, args := range [][]string{
		nil,
		{"--agent", "gemini"},
		{"--agent=codex", `{"type":"agent-turn-complete"}`},
		{"--agent", "copilot", "agentStop"},
		{"--agent", "setup"}, // an agent's name, however it reads
		{"-", "--dry-run", "Stop"},
	} {
		if hook.MayNameCommand(args) {
			t.Errorf("%q is taken for a command's name", args)
		}
	}
}
