package agent

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// gemini is Gemini CLI: Claude-shaped JSON with its own event names, and an
// ISO timestamp on every payload.
var gemini = &Dialect{
	Agent:   Gemini,
	Aliases: []string{"gemini-cli"},
	Title:   "Gemini CLI",
	Product: "gemini-cli",
	Detect: func(p gjson.Result) bool {
		name := p.Get("hook_event_name").String()
		// Claude Code stamps nothing; Gemini every payload.
		return geminiOnly[name] || p.Get("timestamp").Type == gjson.String && name != ""
	},
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"BeforeAgent", Prompt, false},
		{"BeforeModel", Unknown, false}, // no status change
		{"BeforeToolSelection", Unknown, false},
		{"BeforeTool", ToolStart, false},
		{"AfterTool", ToolEnd, false},
		{"Notification", Attention, false},
		// AfterModel fires per streamed chunk: never installed.
		{"AfterModel", Text, true},
		{"AfterAgent", TurnEnd, false},
		{"PreCompress", Compact, false}, // or nothing: see refineGemini
		{"SessionEnd", SessionEnd, false},
	},
	Paths: Paths{
		Session: []string{"GEMINI_SESSION_ID"},
		Message: []string{"prompt_response"},
		// BeforeModel and AfterModel carry the whole request, the results
		// of the tools already run among its messages.
		ToolOutput: []string{"llm_request"},
		Model:      []string{"llm_request.model"},
		SessionEnv: "GEMINI_SESSION_ID",
	},
	Tools: map[string]string{
		"run_shell_command": Bash, "read_file": Read, "read_many_files": Read, "get_internal_docs": Read,
		"write_file": Write, "replace": Edit, "glob": Glob, "search_file_content": Grep, "grep_search": Grep,
		"list_directory": LS, "web_fetch": WebFetch, "google_web_search": WebSearch, "save_memory": Memory,
		"write_todos": TodoWrite, "update_topic": Intent, "ask_user": AskUserQuestion, "invoke_agent": Task,
		"enter_plan_mode": EnterPlanMode, "exit_plan_mode": ExitPlanMode, "activate_skill": Skill,
		"complete_task": CompleteTask, "read_mcp_resource": ReadMcpResource, "list_mcp_resources": ListMcpResource,
	},
	Args: []Alias{
		{"absolute_path", ArgFilePath}, {"paths.0", ArgFilePath}, {"dir_path", ArgPath},
		{"agent_name", ArgSubagentType},
	},
	ToolArgs: map[string][]Alias{
		"get_internal_docs": {{"path", ArgFilePath}},
		// update_topic's title is the line to show, its strategic_intent the
		// longer account.
		"update_topic":   {{"title", ArgIntent}, {"strategic_intent", ArgIntent}},
		"activate_skill": {{"name", ArgSkill}},
	},
	Refine: refineGemini,
	Burn:   &Burn{Format: transcript.Gemini},
	Answer: geminiAnswer,
	Settings: &Settings{
		User: []string{".gemini", "settings.json"}, Project: []string{".gemini", "settings.json"},
		HomeVar: "GEMINI_CLI_HOME", HomeRel: []string{".gemini", "settings.json"},
		Shape: Nested, Unit: time.Millisecond, RedactsEnv: true,
		Matched: []string{"BeforeTool", "AfterTool"},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"gemini"},
		// PowerShell -Command on Windows (HookRunner, getShellConfiguration;
		// docs/reference/windows-shells.md).
		WindowsShell: ShellPowerShell,
		// ~/.gemini is Antigravity's too (config/hooks.json, antigravity/):
		// what Gemini CLI makes there on its first run is its own.
		Owns: []string{"settings.json", "tmp", "oauth_creds.json"},
	},
	// Gemini CLI reads a JSON object after every hook, and warns without one.
	Reply: func(string, Reply) string { return "{}" },
}

// geminiOnly are the hook_event_name values only Gemini CLI sends.
var geminiOnly = map[string]bool{
	"BeforeAgent": true, "AfterAgent": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true, "PreCompress": true,
}

func refineGemini(ev *Event, p gjson.Result) {
	switch ev.Kind {
	case Compact:
		// Gemini CLI 0.61 fires PreCompress (trigger auto) before every model
		// request, whether or not anything is compacted. It says nothing the
		// BeforeAgent or AfterTool just before it did not (the model is about
		// to think). Only a compression the user asked for (/compress) is sure.
		if ev.Reason != "manual" {
			ev.Kind = Unknown
		}
	case Attention:
		if ev.Reason == "ToolPermission" {
			ev.Kind = Permission
			geminiPermissionTool(ev, p.Get("details"))
		}
	case ToolEnd:
		// tool_response.error is {"message","type"}.
		if e := p.Get("tool_response.error"); e.Exists() && e.Type != gjson.Null && e.String() != "" {
			ev.OK = false
			if ev.Error == "" {
				if m := e.Get("message"); e.IsObject() && m.String() != "" {
					ev.Error = m.String()
				} else if !e.IsObject() {
					ev.Error = errorText(e)
				} else {
					ev.Error = "error"
				}
			}
		} else if code := shellExitCode(p.Get("tool_response.llmContent").String()); code != "" {
			// A shell command that failed sets no error: its exit code is
			// only in the text the model reads.
			ev.OK = false
			ev.Error = "Exit Code: " + code
		}
	}
	// After the switch: a ToolPermission names its tool there.
	if strings.EqualFold(ev.Tool, "web_fetch") {
		// web_fetch takes a prompt that holds the URLs ("Summarize
		// https://…"): the first is the url.
		if in := gjson.ParseBytes(ev.ToolInput); in.IsObject() && !in.Get(ArgURL).Exists() {
			if u := firstURL(in.Get("prompt").String()); u != "" {
				ev.ToolInput = setFields(ev.ToolInput, in, []arg{{ArgURL, strconv.Quote(u)}})
			}
		}
	}
}

// geminiPermissionTool reads the tool out of a ToolPermission notification's
// details (its confirmation: type exec, edit, mcp or info), in the names
// and inputs of Gemini CLI's own tools.
func geminiPermissionTool(ev *Event, d gjson.Result) {
	switch d.Get("type").String() {
	case "exec":
		ev.Tool = "run_shell_command"
		ev.ToolInput = object("command", d.Get("command"))
	case "edit":
		ev.Tool = "replace"
		ev.ToolInput = object("file_path", d.Get("filePath"))
	case "mcp":
		ev.Tool = d.Get("toolName").String()
		if s := d.Get("serverName").String(); s != "" && ev.Tool != "" {
			ev.Tool = "mcp__" + s + "__" + ev.Tool
		}
	case "info":
		ev.Tool = "web_fetch"
		ev.ToolInput = object("prompt", d.Get("prompt"))
	}
}

// shellExitCode is the non-zero exit code of Gemini CLI's shell tool, from
// its llmContent: "Output: …", then "Error: …", "Exit Code: N", "Signal: …",
// "Background PIDs: …", "Process Group PGID: …" lines, each only when it
// applies. The output itself may say anything, so only the lines after it
// are read, from the end.
func shellExitCode(content string) string {
	// 0.61 wraps it: "<untrusted_context>\nOutput: …\n</untrusted_context>".
	if c, ok := strings.CutPrefix(content, "<untrusted_context>\n"); ok {
		content = strings.TrimSuffix(strings.TrimRight(c, "\n"), "</untrusted_context>")
	}
	if !strings.HasPrefix(content, "Output: ") {
		return ""
	}
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	for i := len(lines) - 1; i > 0; i-- {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Process Group PGID: "), strings.HasPrefix(l, "Background PIDs: "),
			strings.HasPrefix(l, "Signal: "):
			continue
		case strings.HasPrefix(l, "Exit Code: "):
			code := strings.TrimPrefix(l, "Exit Code: ")
			if code != "0" && strings.Trim(strings.TrimPrefix(code, "-"), "0123456789") == "" && code != "" && code != "-" {
				return code
			}
		}
		return ""
	}
	return ""
}

// geminiAnswer: prompt_response is the whole turn's text, the narration
// before each tool call included; the chat has the final answer alone. The
// chat must agree with the payload: a stale or foreign file does not
// replace what the agent said.
func geminiAnswer(ev *Event, _ time.Duration) {
	a, found, err := transcript.GeminiAnswer(ev.Transcript, transcript.TailLimits{})
	if err == nil && found && strings.TrimSpace(a) != "" &&
		strings.HasSuffix(strings.TrimSpace(ev.Message), strings.TrimSpace(a)) {
		ev.Message = strings.TrimSpace(a)
	}
}
