package pulse

import (
	"os"
	"os/exec"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// Pulse's 7th field is the process whose own record names the session and
// that is an ancestor of the hook now: a remembered one that exited, or
// whose session was resumed under another process (its record stays,
// naming the session), is dropped for the live one; a miss is looked for
// again on the next event, not remembered.
func TestAgentProcess(t *testing.T) {
	self := os.Getpid()
	// The walk starts at this test's process, as if it ran the hook.
	saved := agent.HookProcess
	agent.HookProcess = func() (int, int) { return self, self }
	defer func() { agent.HookProcess = saved }()

	sibling := exec.Command("sleep", "30") // alive, and no ancestor of ours
	if err := sibling.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { sibling.Process.Kill(); sibling.Wait() }()
	other := sibling.Process.Pid
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	gone := dead.Process.Pid

	owners := map[int]bool{}
	d := &agent.Dialect{Owns: func(pid int, session string, _ func(string) string) bool {
		return session == "s1" && owners[pid]
	}}
	getenv := func(string) string { return "" }
	ev := agent.Event{Kind: agent.ToolStart, Session: "s1"}

	// Nothing names the session yet: no pid, and nothing remembered of it.
	if got := agentProcess(d, 0, ev, getenv, true); got != 0 {
		t.Fatalf("no record: %d, want 0", got)
	}
	// The record written later is found on the next event.
	owners[self] = true
	if got := agentProcess(d, 0, ev, getenv, true); got != self {
		t.Errorf("record written after a miss: %d, want %d", got, self)
	}
	// Resumed: the old process exited and its record still names the
	// session; the live ancestor does too.
	owners[gone] = true
	if got := agentProcess(d, gone, ev, getenv, true); got != self {
		t.Errorf("remembered %d exited: %d, want the live ancestor %d", gone, got, self)
	}
	// A live process that names the session but is no ancestor of the hook.
	owners[other] = true
	if got := agentProcess(d, other, ev, getenv, true); got != self {
		t.Errorf("remembered %d is no ancestor: %d, want %d", other, got, self)
	}
	// The remembered one kept while it runs the session.
	if got := agentProcess(d, self, ev, getenv, true); got != self {
		t.Errorf("remembered %d still runs it: %d", self, got)
	}
	// An ancestor that no longer names the session (another session now,
	// after /clear): none.
	delete(owners, self)
	if got := agentProcess(d, self, ev, getenv, true); got != 0 {
		t.Errorf("remembered %d names another session: %d, want 0", self, got)
	}

	// A finisher (detached: no agent above it) keeps what its hook found
	// while it lives and names the session.
	owners[self] = true
	if got := agentProcess(d, self, ev, getenv, false); got != self {
		t.Errorf("finisher: %d, want %d kept", got, self)
	}
	if got := agentProcess(d, gone, ev, getenv, false); got != 0 {
		t.Errorf("finisher, remembered %d exited: %d, want 0", gone, got)
	}
	if got := agentProcess(d, 0, ev, getenv, false); got != 0 {
		t.Errorf("finisher with none: %d, want 0", got)
	}

	// A dialect that cannot tell: none, whatever was saved.
	if got := agentProcess(&agent.Dialect{}, 4242, ev, getenv, true); got != 0 {
		t.Errorf("no Owns: %d", got)
	}
}
