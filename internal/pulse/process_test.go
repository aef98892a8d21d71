package pulse

import (
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/transcript"
)

// A session whose agent process is not found is not looked for again on
// every event (each look walks up to 8 /proc parents, asking each whether
// it runs the session); a session's (re)start looks again, and a found
// process is kept while it still runs the session.
func TestAgentProcessRemembersNotFound(t *testing.T) {
	asked := 0
	owner := 0
	d := &agent.Dialect{Owns: func(pid int, _ string, _ func(string) string) bool {
		asked++
		return pid == owner
	}}
	getenv := func(string) string { return "" }
	ev := func(kind agent.Kind) agent.Event { return agent.Event{Kind: kind, Session: "s1"} }

	pid := agentProcess(d, 0, ev(agent.Prompt), getenv, true)
	if pid != notFound || asked == 0 {
		t.Fatalf("first look: pid %d after %d questions, want %d after some", pid, asked, notFound)
	}
	asked = 0
	if pid = agentProcess(d, pid, ev(agent.ToolStart), getenv, true); pid != notFound || asked != 0 {
		t.Errorf("next event: pid %d after %d questions, want %d after none", pid, asked, notFound)
	}
	if got := agentProcess(d, 0, ev(agent.ToolStart), getenv, false); got != 0 {
		t.Errorf("a finisher (detached) remembered %d, want 0: the next hook looks again", got)
	}
	if agentProcess(d, notFound, ev(agent.SessionStart), getenv, true); asked == 0 {
		t.Errorf("a session start did not look again")
	}
	owner, asked = 4242, 0
	if got := agentProcess(d, owner, ev(agent.ToolEnd), getenv, true); got != owner || asked != 1 {
		t.Errorf("found process: %d after %d questions, want %d after 1", got, asked, owner)
	}
}

// The not-found mark survives the session's saved state.
func TestNotFoundSaved(t *testing.T) {
	s := &transcript.Session{PID: notFound}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back transcript.Session
	if err := back.UnmarshalBinary(b); err != nil || back.PID != notFound {
		t.Errorf("PID %d saved, %d read back (%v)", notFound, back.PID, err)
	}
}
