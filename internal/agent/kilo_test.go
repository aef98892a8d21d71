package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func init() { parseCases = append(parseCases, kiloCases()...) }

// kiloCases are Kilo Code CLI's payloads, read with --agent kilo: its
// recorded session (7.7.9, the plugin opencode's), and opencode's payloads
// for what that session does not show (the same bus events and hooks).
func kiloCases() []parseCase {
	rec := recording("kilo-7.8.1/")
	oc := recording("opencode-1.18.33/")
	const (
		main = "ses_dcd767a8bffedOBtIRQZIZzbQl"
		cwd  = "/home/user/proj"
	)
	ev := func(kind Kind, name, session string, f ...func(*Event)) Event {
		e := Event{Agent: "kilo", Kind: kind, Name: name, Session: session, Cwd: cwd, Time: now}
		for _, f := range f {
			f(&e)
		}
		return e
	}
	tool := func(name, id, input string) func(*Event) {
		return func(e *Event) {
			e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = name, strings.ToLower(name), id, json.RawMessage(input)
		}
	}
	return []parseCase{
		{"kilo/session.created", "kilo", nil, rec("01-session.created.json"), ev(SessionStart, "session.created", main)},
		{"kilo/chat.message", "kilo", nil, rec("02-chat.message.json"), ev(Prompt, "chat.message", main, func(e *Event) {
			e.Prompt, e.Model = "Run the three hookwire steps.", "scripted-model"
		})},
		// The tools are opencode's, in Claude Code's names; the model's call
		// ids (the chat completions wire's) are Kilo's callID.
		{"kilo/tool.execute.before", "kilo", nil, rec("03-tool.execute.before.json"), ev(ToolStart, "tool.execute.before", main,
			tool("Bash", "call_000000000000000000000001", `{"command":"echo hookwire-step-one","description":"Print a marker"}`))},
		{"kilo/tool.execute.after", "kilo", nil, rec("04-tool.execute.after.json"), ev(ToolEnd, "tool.execute.after", main,
			tool("Bash", "call_000000000000000000000001", `{"command":"echo hookwire-step-one","description":"Print a marker"}`),
			func(e *Event) { e.OK = true })},
		{"kilo/tool.execute.before write", "kilo", nil, rec("05-tool.execute.before.json"), ev(ToolStart, "tool.execute.before", main,
			tool("Write", "call_000000000000000000000003", `{"filePath":"/home/user/proj/notes.txt","content":"hookwire live notes\n","file_path":"/home/user/proj/notes.txt"}`))},
		// `kilo run` is opencode's `run`: the plugin marks its turn's end.
		{"kilo/session.idle", "kilo", nil, rec("09-session.idle.json"), ev(TurnEnd, "session.idle", main, func(e *Event) {
			e.Message, e.Model = "All three steps are done: I ran a command, wrote notes.txt and read it back.", "scripted-model"
			e.Final = true
		})},
		// Kilo's own event, after session.idle: nothing.
		{"kilo/session.drained", "kilo", nil, rec("10-session.drained.json"), ev(Unknown, "session.drained", main)},

		// opencode 1.18.33's payloads, as Kilo's plugin hands them over too.
		{"kilo/message.part.updated error", "kilo", nil, oc("tool-errors/06-message.part.updated.json"), ev(ToolEnd, "message.part.updated", "ses_dcd820cccffeIDBflu1ARx4jKS",
			tool("Read", "toolu_000000000000000000000004", `{"filePath":"/home/user/proj/missing.txt","file_path":"/home/user/proj/missing.txt"}`),
			func(e *Event) { e.Error = "File not found: /home/user/proj/missing.txt" })},
		{"kilo/permission.replied", "kilo", nil, oc("permission-refused/05-permission.replied.json"), ev(Unknown, "permission.replied", "ses_dcd821cf3ffeW8zt1UVcf5JcNL")},
		{"kilo/session.error", "kilo", nil, oc("api-error/03-session.error.json"), ev(Error, "session.error", "ses_dd266a398ffeRCjlp78Dam7GT9", func(e *Event) {
			e.ErrorType, e.Error, e.Final = "APIError", `Not Found: {"error":{"message":"not scripted"}}`, true
		})},
		{"kilo/question.asked", "kilo", nil,
			`{"type":"question.asked","directory":"/w","id":"evt_5","properties":{"id":"que_1","sessionID":"ses_a",` +
				`"questions":[{"header":"Layout","question":"Which layout?","options":[{"label":"A","description":"a"}]}],"tool":{"messageID":"msg_1","callID":"toolu_1"}}}`,
			Event{Agent: "kilo", Kind: Attention, Name: "question.asked", Session: "ses_a", Cwd: "/w", ToolUseID: "toolu_1", Message: "Which layout?", Time: now}},
	}
}

// Kilo's plugin is opencode's, byte for byte but its config line: one
// plugin serves both, the agent named by its command's --agent.
func TestKiloPluginIsOpencodes(t *testing.T) {
	events := map[string]time.Duration{"session.idle": 10 * time.Second}
	k := string(kilo.Settings.Plugin.Source([]string{"/usr/local/bin/pulse-claude", "--agent", "kilo"}, events))
	o := string(opencode.Settings.Plugin.Source([]string{"/usr/local/bin/pulse-claude", "--agent", "kilo"}, events))
	if k != o || !strings.Contains(k, `"command":["/usr/local/bin/pulse-claude","--agent","kilo"]`) {
		t.Errorf("Kilo's plugin is not opencode's with --agent kilo")
	}
	if kilo.Burn == nil || kilo.Burn.Format != opencode.Burn.Format || kilo.Refine == nil {
		t.Errorf("Kilo does not read its payloads as opencode's")
	}
	if got := strings.Join(kilo.Settings.User, "/"); got != ".config/kilo/plugins" {
		t.Errorf("Kilo's user plugins folder %s", got)
	}
}
