package consent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// The hooks the panel asks on, per agent: where each agent's hooks can
// answer both ways (its dialect's Reply and Approves), and nowhere else.
func TestAsksAt(t *testing.T) {
	want := map[agent.Agent][]string{
		agent.Claude:  {"PreToolUse"},
		agent.Codex:   {"PermissionRequest"},
		"qwen":        {"PermissionRequest"},
		agent.Copilot: {"permissionRequest"},
		agent.Droid:   {"PreToolUse"},
		"auggie":      {"PreToolUse"},
		"muse":        {"PermissionRequest"},
		"hermes":      {"PermissionRequest"},
		// The agents that run Claude Code's hooks, each asked where its
		// own hooks read an answer: Grok Build before a tool (its allow
		// leaves its own prompt, its denial blocks), Devin CLI and Qoder
		// CLI at their permission request.
		"grok":  {"pre_tool_use"},
		"devin": {"PermissionRequest"},
		"qoder": {"PermissionRequest"},
	}
	for _, d := range agent.Dialects() {
		var got []string
		for _, n := range d.Events {
			if AsksAt(d, n.Name) && !slices.Contains(got, n.Name) {
				got = append(got, n.Name)
			}
		}
		if !slices.Equal(got, want[d.Agent]) {
			t.Errorf("%s: the panel asks on %q, want %q", d.Agent, got, want[d.Agent])
		}
	}
}

// Claude Code's PreToolUse is asked for consent.py's four tools only, and
// its PermissionRequest not at all (its PreToolUse was), though the panel
// covers it; Codex's PermissionRequest for any tool.
func TestAsks(t *testing.T) {
	claude := func(event, tool string) agent.Event {
		return agent.Parse(agent.Input{Agent: "claude", Payload: []byte(`{"session_id":"s","hook_event_name":"` + event + `","tool_name":"` + tool + `","tool_input":{}}`)})
	}
	for _, c := range []struct {
		ev           agent.Event
		asks, covers bool
	}{
		{claude("PreToolUse", "Bash"), true, true},
		{claude("PreToolUse", "NotebookEdit"), true, true},
		{claude("PreToolUse", "Read"), false, false},
		{claude("PreToolUse", "mcp__x__y"), false, false},
		{claude("PermissionRequest", "Bash"), false, true},
		{claude("PostToolUse", "Bash"), false, false},
		{agent.Parse(agent.Input{Agent: "codex", Payload: []byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"mcp__x__y","tool_input":{}}`)}), true, true},
		{agent.Parse(agent.Input{Agent: "codex", Payload: []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)}), false, false},
		{agent.Parse(agent.Input{Agent: "gemini", Payload: []byte(`{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`)}), false, false},
	} {
		if got := Asks(c.ev); got != c.asks {
			t.Errorf("Asks(%s %s %s) = %v", c.ev.Agent, c.ev.Name, c.ev.Tool, got)
		}
		if got := Covers(c.ev); got != c.covers {
			t.Errorf("Covers(%s %s %s) = %v", c.ev.Agent, c.ev.Name, c.ev.Tool, got)
		}
	}
}

// pulse-claude decides a call only while the panel enforces: in any other
// mode hookwire need not wait for its delivery.
func TestDecides(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	ev := agent.Parse(agent.Input{Agent: "claude", Payload: []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)})
	if Decides(ev) {
		t.Error("no mode file: decides")
	}
	os.MkdirAll(filepath.Join(run, "claude-companion"), 0o700)
	for mode, want := range map[string]bool{"learn": false, "off": false, "enforce": true} {
		os.WriteFile(filepath.Join(run, "claude-companion", "mode"), []byte(mode+"\n"), 0o600)
		if got := Decides(ev); got != want {
			t.Errorf("mode %s: Decides %v, want %v", mode, got, want)
		}
	}
	read := agent.Parse(agent.Input{Agent: "claude", Payload: []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`)})
	if Decides(read) {
		t.Error("a Read, which the panel does not ask about, decides in enforce")
	}
}
