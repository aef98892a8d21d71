package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// opencode's cases: what its plugin handed over in the recorded sessions
// (testdata/agents/opencode-1.18.33, see its README), and a few payloads
// written from opencode's event schema for what was not recorded. They join
// parseCases, so that TestParse checks each whole and TestEveryKindCovered
// counts them.
func init() { parseCases = append(parseCases, opencodeCases()...) }

func opencodeCases() []parseCase {
	rec := recording("opencode-1.18.33/")
	const (
		main    = "ses_dcd837073ffeKX7XmyjWXdY0sz"
		errs    = "ses_dcd820cccffeIDBflu1ARx4jKS"
		refused = "ses_dcd821cf3ffeW8zt1UVcf5JcNL"
		broken  = "ses_dd266a398ffeRCjlp78Dam7GT9"
		parent  = "ses_dcd80b09cffeSrJmcaO19T2TPZ"
		cwd     = "/home/user/proj"
	)
	ev := func(kind Kind, name, session string, f ...func(*Event)) Event {
		e := Event{Agent: "opencode", Kind: kind, Name: name, Session: session, Cwd: cwd, Time: now}
		for _, f := range f {
			f(&e)
		}
		return e
	}
	// tool: the tool in the canonical vocabulary; opencode's own name is
	// the same, lower-cased.
	tool := func(name, id, input string) func(*Event) {
		return func(e *Event) {
			e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = name, strings.ToLower(name), id, json.RawMessage(input)
		}
	}
	return []parseCase{
		{"opencode/session.created", "opencode", nil, rec("01-session.created.json"), ev(SessionStart, "session.created", main)},
		{"opencode/chat.message", "opencode", nil, rec("02-chat.message.json"), ev(Prompt, "chat.message", main, func(e *Event) {
			e.Prompt, e.Model = "Run the three hookwire steps.", "claude-sonnet-4-5"
		})},
		// The tools in Claude Code's names; the arguments' canonical names
		// beside opencode's.
		{"opencode/tool.execute.before", "opencode", nil, rec("03-tool.execute.before.json"), ev(ToolStart, "tool.execute.before", main,
			tool("Bash", "toolu_000000000000000000000002", `{"command":"echo hookwire-step-one","description":"Print a marker"}`))},
		{"opencode/tool.execute.after", "opencode", nil, rec("04-tool.execute.after.json"), ev(ToolEnd, "tool.execute.after", main,
			tool("Bash", "toolu_000000000000000000000002", `{"command":"echo hookwire-step-one","description":"Print a marker"}`),
			func(e *Event) { e.OK = true })},
		{"opencode/tool.execute.before write", "opencode", nil, rec("05-tool.execute.before.json"), ev(ToolStart, "tool.execute.before", main,
			tool("Write", "toolu_000000000000000000000004", `{"content":"hookwire live notes\n","filePath":"/home/user/proj/notes.txt","file_path":"/home/user/proj/notes.txt"}`))},
		// The answer: the plugin puts the turn's last text on session.idle.
		// `opencode run` ends no session: its turn's end is the last event.
		{"opencode/session.idle", "opencode", nil, rec("09-session.idle.json"), ev(TurnEnd, "session.idle", main, func(e *Event) {
			e.Message, e.Model = "All three steps are done: I ran a command, wrote notes.txt and read it back.", "claude-sonnet-4-5"
			e.Final = true
		})},
		// A shell command that exits 3 returns: its exit code is in the
		// metadata.
		{"opencode/tool.execute.after exit 3", "opencode", nil, rec("tool-errors/04-tool.execute.after.json"), ev(ToolEnd, "tool.execute.after", errs,
			tool("Bash", "toolu_000000000000000000000002", `{"command":"echo failing >&2; exit 3","description":"Fail on purpose"}`),
			func(e *Event) { e.Error = "exit code 3" })},
		// A missing file throws: no tool.execute.after, the tool's part in
		// error instead.
		{"opencode/message.part.updated error", "opencode", nil, rec("tool-errors/06-message.part.updated.json"), ev(ToolEnd, "message.part.updated", errs,
			tool("Read", "toolu_000000000000000000000004", `{"filePath":"/home/user/proj/missing.txt","file_path":"/home/user/proj/missing.txt"}`),
			func(e *Event) { e.Error = "File not found: /home/user/proj/missing.txt" })},
		{"opencode/tool.execute.before edit", "opencode", nil, rec("tool-errors/07-tool.execute.before.json"), ev(ToolStart, "tool.execute.before", errs,
			tool("Edit", "toolu_000000000000000000000006", `{"filePath":"/home/user/proj/notes.txt","newString":"new line","oldString":"old line",`+
				`"file_path":"/home/user/proj/notes.txt","old_string":"old line","new_string":"new line"}`))},
		// A person is asked in opencode (no plugin can answer); opencode run
		// refuses at once, and the tool's part is in error.
		{"opencode/permission.asked", "opencode", nil, rec("permission-refused/04-permission.asked.json"), ev(Permission, "permission.asked", refused,
			tool("Bash", "toolu_000000000000000000000002", `{"command":"touch /home/user/proj/marker"}`))},
		{"opencode/permission.replied", "opencode", nil, rec("permission-refused/05-permission.replied.json"), ev(Unknown, "permission.replied", refused)},
		{"opencode/message.part.updated refused", "opencode", nil, rec("permission-refused/06-message.part.updated.json"), ev(ToolEnd, "message.part.updated", refused,
			tool("Bash", "toolu_000000000000000000000002", `{"command":"touch /home/user/proj/marker","description":"Create a marker file"}`),
			func(e *Event) { e.Error = "The user rejected permission to use this specific tool call." })},
		{"opencode/session.idle no answer", "opencode", nil, rec("permission-refused/07-session.idle.json"), ev(TurnEnd, "session.idle", refused,
			func(e *Event) { e.Model, e.Final = "claude-sonnet-4-5", true })},
		{"opencode/session.error", "opencode", nil, rec("api-error/03-session.error.json"), ev(Error, "session.error", broken, func(e *Event) {
			e.ErrorType, e.Error, e.Final = "APIError", `Not Found: {"error":{"message":"not scripted"}}`, true
		})},

		// A subagent (the task tool) runs in a child session, named by the
		// parentID the plugin adds: it starts and stops in the parent's
		// session, its tools are the parent's, its prompt is none of the
		// user's. It asked for the task tool again, which it does not have:
		// opencode's "invalid" tool, which runs nothing.
		{"opencode/child session.created", "opencode", nil, rec("subagent/04-session.created.json"), ev(SubagentStart, "session.created", parent)},
		{"opencode/child chat.message", "opencode", nil, rec("subagent/05-chat.message.json"), ev(Unknown, "chat.message", parent, func(e *Event) {
			e.Prompt, e.Model = "Say what you find.", "claude-sonnet-4-5"
		})},
		{"opencode/child invalid tool", "opencode", nil, rec("subagent/07-tool.execute.after.json"), ev(ToolEnd, "tool.execute.after", parent,
			tool("invalid", "toolu_000000000000000000000004", `{"tool":"task","error":"Model tried to call unavailable tool 'task'. `+
				`Available tools: bash, edit, glob, grep, invalid, read, skill, webfetch, write."}`),
			func(e *Event) {
				e.Error = "Model tried to call unavailable tool 'task'. Available tools: bash, edit, glob, grep, invalid, read, skill, webfetch, write."
			})},
		{"opencode/child session.idle", "opencode", nil, rec("subagent/08-session.idle.json"), ev(SubagentStop, "session.idle", parent, func(e *Event) {
			e.Message, e.Model = "The subagent is done.", "claude-sonnet-4-5"
		})},
		{"opencode/task", "opencode", nil, rec("subagent/09-tool.execute.after.json"), ev(ToolEnd, "tool.execute.after", parent,
			tool("Task", "toolu_000000000000000000000002", `{"description":"Look around","prompt":"Say what you find.","subagent_type":"general"}`),
			func(e *Event) { e.OK = true })},

		// Written from opencode's event schema (not recorded): a turn the
		// user cut short, a question the TUI asks, a text part (the plugin
		// hands over none).
		{"opencode/aborted", "opencode", nil,
			`{"type":"session.error","directory":"/w","id":"evt_3","properties":{"sessionID":"ses_a","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}`,
			Event{Agent: "opencode", Kind: Interrupted, Name: "session.error", Session: "ses_a", Cwd: "/w", ErrorType: "MessageAbortedError", Error: "Aborted", Time: now}},
		{"opencode/question.asked", "opencode", nil,
			`{"type":"question.asked","directory":"/w","id":"evt_5","properties":{"id":"que_1","sessionID":"ses_a",` +
				`"questions":[{"header":"Layout","question":"Which layout?","options":[{"label":"A","description":"a"}]}],"tool":{"messageID":"msg_1","callID":"toolu_1"}}}`,
			Event{Agent: "opencode", Kind: Attention, Name: "question.asked", Session: "ses_a", Cwd: "/w", ToolUseID: "toolu_1", Message: "Which layout?", Time: now}},
		{"opencode/text part", "opencode", nil,
			`{"type":"message.part.updated","directory":"/w","id":"evt_4","properties":{"sessionID":"ses_a","part":{"type":"text","text":"Hi","sessionID":"ses_a"}}}`,
			Event{Agent: "opencode", Kind: Unknown, Name: "message.part.updated", Session: "ses_a", Cwd: "/w", Time: now}},
		// Coucou's own opencode plugin writes Claude-shaped JSON with
		// --agent opencode: it still reads as it did, the tool now in
		// Claude Code's name.
		{"opencode/Coucou's plugin", "opencode", nil, `{"hook_event_name":"PreToolUse","session_id":"oc-1","cwd":"/w","tool_name":"bash","tool_input":{"command":"ls"}}`,
			Event{Agent: "opencode", Kind: ToolStart, Name: "PreToolUse", Session: "oc-1", Cwd: "/w", Tool: "Bash", AgentTool: "bash",
				ToolInput: json.RawMessage(`{"command":"ls"}`), Time: now}},
	}
}

// The plugin install writes: the embedded source, its config line filled
// in, nothing else changed.
func TestOpencodePluginSource(t *testing.T) {
	src := string(opencode.Settings.Plugin.Source([]string{"/usr/local/bin/nb-hook", "--agent", "opencode"},
		map[string]time.Duration{"session.idle": 10 * time.Second, "permission.asked": 2 * time.Minute}))
	want := `/*hookwire*/ const config = {"command":["/usr/local/bin/nb-hook","--agent","opencode"],` +
		`"events":{"permission.asked":120000,"session.idle":10000}}` + "\n"
	if !strings.Contains(src, "\n"+want) {
		t.Errorf("no config line %q in:\n%s", want, src)
	}
	if src != installedPlugin(t, opencodePlugin, want) {
		t.Errorf("the plugin changed beyond its config line and its queue")
	}
	// No npm dependency: opencode would install it (offline, a wait of
	// about 70 s) for any plugin that imports one.
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "import ") && !strings.Contains(line, `from "node:`) {
			t.Errorf("the plugin imports a package: %s", line)
		}
	}
}
