package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Pi's cases: what its extension handed over in the recorded sessions
// (testdata/agents/pi-1.6.0, see its README), and a few payloads written
// from Pi's extension events for what was not recorded. They join
// parseCases, so that TestParse checks each whole and TestEveryKindCovered
// counts them.
func init() { parseCases = append(parseCases, piCases()...) }

func piCases() []parseCase {
	rec := recording("pi-1.6.0/")
	const (
		main   = "01a23278-2f4f-73a6-9fe3-45d6d40718be"
		errs   = "01a2327c-1e59-765c-880f-c581bcc8e6b0"
		broken = "01a2327c-8847-76d3-bcce-6829b7389e81"
		cwd    = "/home/user/proj"
		dir    = "/home/user/.pi/agent/sessions/--home-user-proj--/"
	)
	file := map[string]string{
		main:   dir + "2026-12-01T16-37-46-960Z_" + main + ".jsonl",
		errs:   dir + "2026-12-01T16-42-04-761Z_" + errs + ".jsonl",
		broken: dir + "2026-12-01T16-42-31-880Z_" + broken + ".jsonl",
	}
	ev := func(kind Kind, name, session string, f ...func(*Event)) Event {
		e := Event{Agent: "pi", Kind: kind, Name: name, Session: session, Cwd: cwd, Transcript: file[session], Time: now}
		for _, f := range f {
			f(&e)
		}
		return e
	}
	// tool: the tool in the canonical vocabulary; Pi's own name is the
	// same, lower-cased.
	tool := func(name, id, input string) func(*Event) {
		return func(e *Event) {
			e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = name, strings.ToLower(name), id, json.RawMessage(input)
		}
	}
	answer := "All three steps are done: I ran a command, wrote notes.txt and read it back."
	return []parseCase{
		{"pi/session_start", "pi", nil, rec("01-session_start.json"), ev(SessionStart, "session_start", main, func(e *Event) { e.Reason = "startup" })},
		{"pi/before_agent_start", "pi", nil, rec("02-before_agent_start.json"), ev(Prompt, "before_agent_start", main, func(e *Event) {
			e.Prompt = "Run the three hookwire steps."
		})},
		// The tools in Claude Code's names; the arguments' canonical names
		// beside Pi's.
		{"pi/tool_call", "pi", nil, rec("03-tool_call.json"), ev(ToolStart, "tool_call", main,
			tool("Bash", "call_000000000000000000000001", `{"command":"echo hookwire-step-one"}`))},
		// tool_execution_end with the input its call had (the extension
		// keeps it: Pi's own event has none).
		{"pi/tool_execution_end", "pi", nil, rec("04-tool_execution_end.json"), ev(ToolEnd, "tool_execution_end", main,
			tool("Bash", "call_000000000000000000000001", `{"command":"echo hookwire-step-one"}`), func(e *Event) { e.OK = true })},
		{"pi/tool_call write", "pi", nil, rec("05-tool_call.json"), ev(ToolStart, "tool_call", main,
			tool("Write", "call_000000000000000000000003", `{"path":"/home/user/proj/notes.txt","content":"hookwire live notes\n","file_path":"/home/user/proj/notes.txt"}`))},
		// The answer and the model: the extension takes them from the run's
		// last assistant message.
		{"pi/agent_settled", "pi", nil, rec("09-agent_settled.json"), ev(TurnEnd, "agent_settled", main, func(e *Event) {
			e.Message, e.Model = answer, "scripted-coder"
		})},
		{"pi/session_shutdown", "pi", nil, rec("10-session_shutdown.json"), ev(SessionEnd, "session_shutdown", main, func(e *Event) { e.Reason = "quit" })},
		// A failed tool: Pi's own last line, not the command's output.
		{"pi/tool_execution_end exit 3", "pi", nil, rec("tool-errors/04-tool_execution_end.json"), ev(ToolEnd, "tool_execution_end", errs,
			tool("Bash", "call_000000000000000000000001", `{"command":"echo failing >&2; exit 3"}`), func(e *Event) { e.Error = "Command exited with code 3" })},
		{"pi/tool_execution_end missing file", "pi", nil, rec("tool-errors/06-tool_execution_end.json"), ev(ToolEnd, "tool_execution_end", errs,
			tool("Read", "call_000000000000000000000003", `{"path":"/home/user/proj/missing.txt","file_path":"/home/user/proj/missing.txt"}`), func(e *Event) {
				e.Error = "ENOENT: no such file or directory, access '/home/user/proj/missing.txt'"
			})},
		{"pi/tool_call edit", "pi", nil, rec("tool-errors/07-tool_call.json"), ev(ToolStart, "tool_call", errs,
			tool("Edit", "call_000000000000000000000005", `{"path":"/home/user/proj/notes.txt","edits":[{"oldText":"old line","newText":"new line"}],"file_path":"/home/user/proj/notes.txt"}`))},
		// The API refused the model call: the run ends in error.
		{"pi/agent_settled error", "pi", nil, rec("api-error/03-agent_settled.json"), ev(Error, "agent_settled", broken, func(e *Event) {
			e.Model = "scripted-coder"
			e.Error = `400: {"type":"scripted_error","code":400,"message":"scripted failure (HTTP 400)"}`
		})},

		// Written from Pi's extension events (not recorded): a run the user
		// cut short (Escape), a compaction, a reload (the session goes on).
		{"pi/aborted", "pi", nil, `{"type":"agent_settled","cwd":"/w","sessionId":"s1","aborted":true,"model":"m","stopReason":"aborted"}`,
			Event{Agent: "pi", Kind: Interrupted, Name: "agent_settled", Session: "s1", Cwd: "/w", Model: "m", Time: now}},
		{"pi/session_before_compact", "pi", nil, `{"type":"session_before_compact","cwd":"/w","sessionId":"s1","reason":"threshold"}`,
			Event{Agent: "pi", Kind: Compact, Name: "session_before_compact", Session: "s1", Cwd: "/w", Reason: "threshold", Time: now}},
		{"pi/session_shutdown reload", "pi", nil, `{"type":"session_shutdown","cwd":"/w","sessionId":"s1","reason":"reload"}`,
			Event{Agent: "pi", Kind: Unknown, Name: "session_shutdown", Session: "s1", Cwd: "/w", Reason: "reload", Time: now}},
	}
}

// The extension install writes: the embedded source, its config line filled
// in, nothing else changed; Node's own modules only (Pi resolves no package
// for an extension in its folder without a package.json).
func TestPiExtensionSource(t *testing.T) {
	src := string(pi.Settings.Plugin.Source([]string{"/usr/local/bin/nb-hook", "--agent", "pi"},
		map[string]time.Duration{"agent_settled": 10 * time.Second, "tool_call": 2 * time.Second}))
	want := `/*hookwire*/ const config = {"command":["/usr/local/bin/nb-hook","--agent","pi"],` +
		`"events":{"agent_settled":10000,"tool_call":2000}}` + "\n"
	if !strings.Contains(src, "\n"+want) {
		t.Errorf("no config line %q in:\n%s", want, src)
	}
	if src != installedPlugin(t, piExtension, want) {
		t.Errorf("the extension changed beyond its config line and its queue")
	}
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "import ") && !strings.Contains(line, `from "node:`) {
			t.Errorf("the extension imports a package: %s", line)
		}
	}
	// Every event the dialect knows is one the extension hands over.
	for _, n := range pi.Events {
		if !strings.Contains(src, `send("`+n.Name+`"`) {
			t.Errorf("the extension never sends %s", n.Name)
		}
	}
}
