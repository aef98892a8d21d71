package agent

import "testing"

// TestReply: what each agent reads on a hook's stdout, per event and
// decision. The expected bytes are each agent's documented or recorded
// format (testdata/agents/), written out here, not derived from the code.
func TestReply(t *testing.T) {
	sugg := []byte(`[ {"type": "addRules"} ]`)
	allow := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
	for _, tc := range []struct {
		agent, event string
		d            Decision
		want         string
	}{
		{"claude", "PermissionRequest", Allow, allow},
		{"claude", "PermissionRequest", Always, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules"}]}}}`},
		{"claude", "PermissionRequest", Deny, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Coucou"}}}`},
		{"claude", "PermissionRequest", Ask, ""},
		{"claude", "PermissionRequest", None, ""},
		{"claude", "UserPromptSubmit", None, ""},
		// Claude Code's PreToolUse takes a decision too (the Noctalia
		// consent panel's, in claude-companion's hooks/consent.py words).
		{"claude", "PreToolUse", Allow, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Approved from Coucou."}}`},
		{"claude", "PreToolUse", Deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied from Coucou."}}`},
		{"claude", "PreToolUse", None, ""},
		{"claude", "PreToolUse", Ask, ""},
		{"codex", "PreToolUse", Allow, ""},
		{"qwen", "PreToolUse", Allow, ""},
		{"claude-desktop", "PermissionRequest", Allow, allow},
		// Codex fails a hook that answers updatedPermissions.
		{"codex", "PermissionRequest", Always, allow},
		{"codex", "PermissionRequest", None, ""},
		{"codex", "Stop", None, ""},
		// Muse Code reads a JSON object after every hook but a permission
		// request (Coucou's Rust relay, reply.rs).
		{"muse", "PermissionRequest", Deny, `{"permissionDecision":"deny"}`},
		{"muse", "PermissionRequest", Allow, `{"permissionDecision":"allow"}`},
		{"muse", "PermissionRequest", Always, `{"permissionDecision":"allow"}`},
		{"muse", "PermissionRequest", None, ""},
		{"muse", "SessionStart", None, "{}"},
		{"muse", "Stop", None, "{}"},
		{"hermes", "PermissionRequest", Allow, `{"choice":"once"}`},
		{"hermes", "PermissionRequest", Always, `{"choice":"always"}`},
		{"hermes", "PermissionRequest", Deny, `{"choice":"deny"}`},
		{"hermes", "Stop", None, ""},
		// Copilot CLI 1.0.102 reads behavior; no answer leaves it to Copilot
		// (recorded: testdata/agents/copilot-1.0.102/permission-prompt).
		{"copilot", "permissionRequest", Allow, `{"behavior":"allow"}`},
		{"copilot", "permissionRequest", Always, `{"behavior":"allow"}`},
		{"copilot", "permissionRequest", Deny, `{"behavior":"deny","message":"Denied from Coucou"}`},
		{"copilot", "permissionRequest", Ask, ""},
		{"copilot", "permissionRequest", None, ""},
		{"copilot", "postToolUse", None, "{}"},
		{"gemini", "BeforeTool", None, "{}"},
		{"gemini", "BeforeTool", Allow, "{}"},
		// {} reads as a denial on Antigravity's PreToolUse.
		{"antigravity", "PreToolUse", None, `{"decision":"ask"}`},
		{"antigravity", "PostToolUse", None, "{}"},
		{"cursor", "preToolUse", None, ""},
		{"aider", "notification", None, ""},
	} {
		d, ok := For(Agent(tc.agent))
		if !ok {
			t.Fatalf("no dialect %q", tc.agent)
		}
		got := ""
		if d.Reply != nil {
			got = d.Reply(tc.event, Reply{Decision: tc.d, Suggestions: sugg, By: "Coucou"})
		}
		if got != tc.want {
			t.Errorf("%s %s %q: %s, want %s", tc.agent, tc.event, tc.d, got, tc.want)
		}
	}
}

// TestAnsweredQuestion: an answered AskUserQuestion goes back as the
// tool's input, on the PermissionRequest and on the --ask PreToolUse hook.
func TestAnsweredQuestion(t *testing.T) {
	in := []byte(`{"answers":{"Q?":"A"},"questions":[]}`)
	r := Reply{Decision: Allow, UpdatedInput: in}
	for name, want := range map[string]string{
		"PermissionRequest": `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"answers":{"Q?":"A"},"questions":[]}}}}`,
		"PreToolUse":        `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"answers":{"Q?":"A"},"questions":[]}}}`,
	} {
		if got := claude.Reply(name, r); got != want {
			t.Errorf("%s: %s\nwant %s", name, got, want)
		}
	}
}

func TestApproves(t *testing.T) {
	for name, want := range map[string]bool{"claude": true, "codex": true, "copilot": true, "muse": true,
		"gemini": false, "antigravity": false, "cursor": false, "hermes": false, "aider": false} {
		d, _ := For(Agent(name))
		if got := d.Approves != nil && d.Approves(Event{}); got != want {
			t.Errorf("%s approves: %v", name, got)
		}
	}
	d, _ := For("hermes")
	if !d.Approves(Event{Raw: []byte(`{"coucou_has_transport":true}`)}) {
		t.Error("hermes with a transport takes decisions")
	}
}

// TestNoChangedInput: agents that take no changed input get no answer for
// an answered question, rather than an allow without the answers.
func TestNoChangedInput(t *testing.T) {
	for _, tc := range []struct{ agent, event string }{{"codex", "PermissionRequest"}, {"copilot", "permissionRequest"}} {
		d, _ := For(Agent(tc.agent))
		if got := d.Reply(tc.event, Reply{Decision: Allow, UpdatedInput: []byte(`{"answers":{}}`)}); got != "" {
			t.Errorf("%s: %s", tc.agent, got)
		}
	}
}
