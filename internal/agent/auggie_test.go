package agent

import (
	"encoding/json"
)

// Auggie's cases: the payloads built from the 0.36.0 bundle's own
// constructors (testdata/agents/auggie-0.36.0-from-bundle, not recorded:
// Auggie needs Augment's backend). Read without --agent, as a hook line
// without it would be: Auggie's, not Cursor's.
func init() { parseCases = append(parseCases, auggieCases()...) }

func auggieCases() []parseCase {
	rec := recording("auggie-0.36.0-from-bundle/")
	const (
		conv = "9f1c2e4a-3b5d-4c6e-8f70-a1b2c3d4e5f6"
		cwd  = "/home/user/proj"
	)
	ev := func(kind Kind, name string, f ...func(*Event)) Event {
		e := Event{Agent: "auggie", Kind: kind, Name: name, Session: conv, Cwd: cwd, Time: now}
		for _, f := range f {
			f(&e)
		}
		return e
	}
	tool := func(name, agentTool, input string) func(*Event) {
		return func(e *Event) { e.Tool, e.AgentTool, e.ToolInput = name, agentTool, json.RawMessage(input) }
	}
	answer := "All three steps are done: I ran a command, wrote notes.txt and read it back."
	bash := `{"command":"echo hookwire-step-one","wait":true,"max_wait_seconds":60,"cwd":"/home/user/proj"}`
	return []parseCase{
		{"auggie/SessionStart", "", nil, rec("01-SessionStart.json"), ev(SessionStart, "SessionStart")},
		{"auggie/PromptSubmit", "", nil, rec("02-PromptSubmit.json"), ev(Prompt, "PromptSubmit", func(e *Event) {
			e.Prompt = "Run the three hookwire steps."
		})},
		{"auggie/PreToolUse", "", nil, rec("03-PreToolUse.json"), ev(ToolStart, "PreToolUse", tool("Bash", "launch-process", bash))},
		{"auggie/PostToolUse", "", nil, rec("04-PostToolUse.json"), ev(ToolEnd, "PostToolUse", tool("Bash", "launch-process", bash),
			func(e *Event) { e.OK = true })},
		{"auggie/PreToolUse save-file", "", nil, rec("05-PreToolUse.json"), ev(ToolStart, "PreToolUse",
			tool("Write", "save-file", `{"path":"notes.txt","file_content":"hookwire live notes\n","file_path":"notes.txt","content":"hookwire live notes\n"}`))},
		// A tool that failed: tool_error.
		{"auggie/PostToolUse error", "", nil, rec("08-PostToolUse.json"), ev(ToolEnd, "PostToolUse",
			tool("Read", "view", `{"path":"missing.txt","type":"file","file_path":"missing.txt"}`),
			func(e *Event) { e.Error = "File not found: missing.txt" })},
		{"auggie/Notification", "", nil, rec("09-Notification.json"), ev(Attention, "Notification", func(e *Event) {
			e.Message, e.Reason = "Auggie is waiting for your input", "info"
		})},
		// The answer, from the conversation data install asks for.
		{"auggie/Stop", "", nil, rec("10-Stop.json"), ev(TurnEnd, "Stop", func(e *Event) { e.Message = answer })},
		{"auggie/Stop interrupted", "", nil, rec("interrupted/01-Stop.json"), ev(Interrupted, "Stop")},
		{"auggie/SessionEnd", "", nil, rec("11-SessionEnd.json"), ev(SessionEnd, "SessionEnd")},
		// With --agent auggie, the same.
		{"auggie/--agent", "auggie", nil, rec("01-SessionStart.json"), ev(SessionStart, "SessionStart")},
		// Cursor's payloads (camelCase events) stay Cursor's.
		{"auggie/not Cursor's", "", nil, `{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":["/w"],"status":"completed"}`,
			Event{Agent: "cursor", Kind: TurnEnd, Name: "stop", Session: "c1", Cwd: "/w", Reason: "completed", Time: now}},
	}
}
