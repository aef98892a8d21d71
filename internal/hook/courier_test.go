package hook

import (
	"io"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// Which deliveries may go on in a courier: on a system that starts
// detached processes, those whose reply decides nothing on a plain hook
// line; never on Windows (the hook waits for each within its budget),
// never an approval, a surface that decides, a hook line with a flag of a
// surface's, a dry run, or with the grace turned off.
func TestHandOverWhere(t *testing.T) {
	t.Setenv(EnvGrace, "")
	t.Setenv(EnvDryRun, "")
	tool := agent.Event{Kind: agent.ToolStart, Name: "PreToolUse", Agent: "claude"}
	plain := &Binary{Name: "vpet-notify"}
	inv := newInvocation(plain, nil, io.Discard, io.Discard)
	// Its watchdog would end the test binary 3 s on (it did under Wine,
	// where the package's tests take longer).
	inv.watchdog.Stop()
	if got := inv.mayHandOver(plain, tool, nil); got != detachable {
		t.Errorf("a plain tool start: %v, want %v (detachable here: %v)", got, detachable, detachable)
	}
	deciding := &Binary{Name: "nb-hook", Decides: func(agent.Event) bool { return true }}
	for what, ok := range map[string]bool{
		"a surface that decides": inv.mayHandOver(deciding, tool, nil),
		"a permission":           inv.mayHandOver(plain, agent.Event{Kind: agent.Permission, Name: "PermissionRequest"}, nil),
		"a flag of a surface's":  inv.mayHandOver(plain, tool, []string{"--statusline"}),
		"an unknown event":       inv.mayHandOver(plain, agent.Event{Kind: agent.Unknown, Name: "Whatever"}, nil),
	} {
		if ok {
			t.Errorf("%s hands over", what)
		}
	}
	t.Setenv(EnvGrace, "0")
	if inv.mayHandOver(plain, tool, nil) {
		t.Error("HOOKWIRE_GRACE=0 hands over")
	}
}
