package hook

import (
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// Which events a warm worker may let the agent go on before it delivers
// (the surfaces' Decides have the last word): not a permission or a review,
// nor what it does not map. Every kind is listed: a new kind must be placed.
func TestDecidesNothing(t *testing.T) {
	want := map[agent.Kind]bool{
		agent.Unknown: false, agent.SessionStart: true, agent.Prompt: true, agent.Thinking: true,
		agent.ToolStart: true, agent.ToolEnd: true, agent.Permission: false, agent.Review: false,
		agent.Attention: true, agent.TurnEnd: true, agent.Interrupted: true, agent.Error: true,
		agent.Compact: true, agent.SubagentStart: true, agent.SubagentStop: true, agent.Text: true,
		agent.SessionEnd: true,
	}
	for _, kind := range append([]agent.Kind{agent.Unknown}, agent.Kinds...) {
		w, placed := want[kind]
		if !placed {
			t.Errorf("%q: a kind this test does not place: may a surface decide it?", kind)
		}
		if got := decidesNothing(agent.Event{Kind: kind, Name: "X"}); got != w {
			t.Errorf("%q: %v, want %v", kind, got, w)
		}
	}
	// Named a permission request by an agent this suite maps otherwise, or a
	// script's event: not let go.
	if decidesNothing(agent.Event{Kind: agent.Attention, Name: "permissionRequest"}) {
		t.Error("a PermissionRequest by name was let go")
	}
	if decidesNothing(agent.Event{Kind: agent.TurnEnd, Name: "turn_end", Script: true}) {
		t.Error("a script's event was let go")
	}
}

func TestPlainArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--agent", "gemini"}, true},
		{[]string{"--agent=cline", "TaskComplete", "-"}, true},
		{[]string{"--ask"}, false},
		{[]string{"--agent", "claude", "--statusline"}, false},
		{[]string{"--approvals", "--agent", "copilot"}, false},
	} {
		if got := plainArgs(tc.args); got != tc.want {
			t.Errorf("plainArgs(%q) = %v", tc.args, got)
		}
	}
}
