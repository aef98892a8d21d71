package agent

import (
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// A dialect is one agent's vocabulary: its event names, and the few events
// whose kind depends on the payload (refine). Field names are shared across
// dialects and live in parse.go's fields table.
type dialect struct {
	events map[string]Kind
	// refine adjusts an event whose kind or OK depends on the payload. It runs
	// after the fields are filled.
	refine func(ev *Event, p gjson.Result)
}

// The dialect tables are ARCHITECTURE.md's event table, column by column.
var dialects = map[Agent]dialect{
	Claude: {
		events: map[string]Kind{
			"SessionStart":       SessionStart,
			"UserPromptSubmit":   Prompt,
			"PreToolUse":         ToolStart,
			"PostToolUse":        ToolEnd,
			"PostToolUseFailure": ToolEnd,
			"PermissionRequest":  Permission,
			"Notification":       Attention,
			"Stop":               TurnEnd,
			"StopFailure":        Error,
			"PreCompact":         Compact,
			"SubagentStart":      SubagentStart,
			"SubagentStop":       SubagentStop,
			"SessionEnd":         SessionEnd,
		},
		refine: refineClaude,
	},
	Codex: {
		events: map[string]Kind{
			"SessionStart":      SessionStart,
			"UserPromptSubmit":  Prompt,
			"PreToolUse":        ToolStart,
			"PostToolUse":       ToolEnd,
			"PermissionRequest": Permission,
			"Stop":              TurnEnd,
			"StopFailure":       Error,
			"PreCompact":        Compact,
			"SubagentStart":     SubagentStart,
			"SubagentStop":      SubagentStop,
			"SessionEnd":        SessionEnd,
			// Coucou's installer wires Codex's Interrupt hook; it is the one
			// signal Codex gives for a turn the user cut short.
			"Interrupt": Interrupted,
			// The legacy notify program's kebab-case types.
			"agent-turn-start":    Prompt,
			"agent-turn-complete": TurnEnd,
		},
		refine: refineClaude,
	},
	Gemini: {
		events: map[string]Kind{
			"SessionStart": SessionStart,
			"BeforeAgent":  Prompt,
			"BeforeTool":   ToolStart,
			"AfterTool":    ToolEnd,
			"Notification": Attention,
			"AfterAgent":   TurnEnd,
			"PreCompress":  Compact, // or nothing: see refine
			"AfterModel":   Text,    // fires per streamed chunk: never installed by default
			"SessionEnd":   SessionEnd,
			// BeforeModel and BeforeToolSelection carry no status change.
			"BeforeModel":         Unknown,
			"BeforeToolSelection": Unknown,
		},
		refine: refineGemini,
	},
	Antigravity: {
		events: map[string]Kind{
			"SessionStart":  SessionStart,
			"PreInvocation": Prompt, // Thinking after the first invocation; see refine
			"PreToolUse":    ToolStart,
			"PostToolUse":   ToolEnd,
			"Stop":          TurnEnd,
			// PostInvocation fires after every model call: the model's answer is
			// either a tool call (PreToolUse follows) or the end (Stop follows).
			"PostInvocation": Unknown,
		},
		refine: refineAntigravity,
	},
	Cursor: {
		events: map[string]Kind{
			"sessionStart":         SessionStart,
			"beforeSubmitPrompt":   Prompt,
			"preToolUse":           ToolStart,
			"beforeShellExecution": ToolStart,
			"beforeMCPExecution":   ToolStart,
			"postToolUse":          ToolEnd,
			"postToolUseFailure":   ToolEnd,
			"afterShellExecution":  ToolEnd,
			"afterMCPExecution":    ToolEnd,
			"afterFileEdit":        ToolEnd,
			"stop":                 TurnEnd, // or Interrupted, Error: see refine
			"preCompact":           Compact,
			"subagentStart":        SubagentStart,
			"subagentStop":         SubagentStop,
			"sessionEnd":           SessionEnd,
		},
		refine: refineCursor,
	},
	Copilot: {
		events: map[string]Kind{
			"sessionStart":        SessionStart,
			"userPromptSubmitted": Prompt,
			"preToolUse":          ToolStart,
			"postToolUse":         ToolEnd,
			"postToolUseFailure":  ToolEnd,
			// permissionRequest asks the hooks, not a person: it fires for every
			// tool that is not read-only, before Copilot's own rules, even
			// under --allow-all-tools. A person is asked only when notification
			// (permission_prompt) follows; see refine.
			"permissionRequest": Unknown,
			"notification":      Attention,
			"agentStop":         TurnEnd,
			"errorOccurred":     Error,
			"preCompact":        Compact,
			"subagentStart":     SubagentStart,
			"subagentStop":      SubagentStop,
			"sessionEnd":        SessionEnd,
		},
		refine: refineCopilot,
	},
	// Aider's --notifications-command runs with no payload when the model is
	// done and aider waits for input.
	Aider: {events: map[string]Kind{}},
}

// dialectOrder fixes which dialect's meaning a shared name gets in the
// universal table: the first one listed wins.
var dialectOrder = []Agent{Claude, Codex, Gemini, Antigravity, Cursor, Copilot}

// universal resolves a name when the dialect does not know it: a positional
// argument written in another agent's vocabulary (`nb-hook --agent gemini
// PreToolUse`), a canonical kind name (`tool_start`) or a snake_case Claude
// name (`pre_tool_use`). Keys are lower-cased: agents match event names
// case-insensitively (Antigravity does) and so do we, as a last resort.
var universal = func() map[string]Kind {
	u := map[string]Kind{}
	add := func(name string, k Kind) {
		if _, ok := u[strings.ToLower(name)]; !ok {
			u[strings.ToLower(name)] = k
		}
	}
	for _, a := range dialectOrder {
		for name, k := range dialects[a].events {
			add(name, k)
		}
	}
	for _, k := range Kinds {
		add(string(k), k)
	}
	for name, k := range dialects[Claude].events {
		add(SnakeCase(name), k)
	}
	return u
}()

// SnakeCase turns an event name such as PreToolUse into pre_tool_use, the
// spelling some agents use (Codex's hook trust keys, snake_case dialects).
func SnakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// kindOf resolves an event name: the dialect's own table, else the universal one.
func kindOf(a Agent, name string) Kind {
	if k, ok := dialects[a].events[name]; ok {
		return k
	}
	return universal[strings.ToLower(name)]
}

func refineClaude(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "Notification":
		if ev.Reason == "permission_prompt" {
			ev.Kind = Permission
		}
	case "PostToolUseFailure":
		ev.OK = false
		if p.Get("is_interrupt").Bool() {
			ev.Kind = Interrupted
		}
	case "StopFailure":
		// error is the category (rate_limit, server_error, …) and
		// error_details the API's own text, when there is one.
		if e := p.Get("error"); e.Type == gjson.String && ev.ErrorType == "" {
			ev.ErrorType = e.Str
		}
		if d := p.Get("error_details"); d.Type == gjson.String && d.Str != "" {
			ev.Error = d.Str
		}
	}
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

func refineAntigravity(ev *Event, p gjson.Result) {
	addArgs(ev, antigravityArgs)
	switch ev.Kind {
	case Prompt:
		// PreInvocation fires before every model call of a turn; only the first
		// one starts the turn.
		if p.Get("invocationNum").Int() > 0 {
			ev.Kind = Thinking
		}
	case ToolEnd:
		ev.OK = ev.Error == ""
	}
}

func refineCursor(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "stop":
		switch p.Get("status").String() {
		case "aborted":
			ev.Kind = Interrupted
		case "error":
			ev.Kind = Error
		}
	case "postToolUseFailure":
		ev.OK = false
	case "beforeShellExecution", "afterShellExecution":
		if ev.Tool == "" {
			ev.Tool = "Shell"
		}
		if ev.ToolInput == nil {
			ev.ToolInput = object("command", p.Get("command"))
		}
	case "afterFileEdit":
		if ev.Tool == "" {
			ev.Tool = "Edit"
		}
		if ev.ToolInput == nil {
			ev.ToolInput = object("file_path", p.Get("file_path"))
		}
	}
}

func refineCopilot(ev *Event, p gjson.Result) {
	copilotTool(ev)
	switch ev.Name {
	case "notification", "Notification": // 1.0.102 names it Notification in the payload
		if ev.Reason == "permission_prompt" {
			ev.Kind = Permission // a person is asked, in Copilot's own prompt
		}
	case "postToolUse":
		if r := p.Get("toolResult.resultType").String(); r != "" && r != "success" {
			ev.OK = false
		} else if m := copilotExit.FindStringSubmatch(p.Get("toolResult.textResultForLlm").String()); m != nil && m[1] != "0" {
			// A shell command that failed is a "success": its exit code is
			// only in the text the model reads (1.0.102).
			ev.OK = false
			ev.Error = "exit code " + m[1]
		}
	case "postToolUseFailure":
		ev.OK = false
	}
}

// ArgKind is the kind a hook's positional argument names, for an event
// whose payload names one nobody maps (a newer agent, a mangled name): the
// settings line's argument says what the hook is for. It is Unknown when the
// event has a kind, when the agent's dialect knows the event and made it
// nothing (Gemini's PreCompress before every request), or maps the argument
// to nothing on purpose (Copilot's permissionRequest asks the hooks, not a
// person).
func ArgKind(ev Event, arg string) Kind {
	if ev.Kind != Unknown || arg == "" {
		return Unknown
	}
	if d, ok := dialects[ev.Agent]; ok {
		if _, known := d.events[ev.Name]; known {
			return Unknown
		}
		if k, ok := d.events[arg]; ok && k == Unknown {
			return Unknown
		}
	}
	return Lookup(arg)
}

// copilotExit is the last line of Copilot CLI's shell tool result.
var copilotExit = regexp.MustCompile(`<shellId: [^>\s]+ completed with exit code (-?\d+)>\s*$`)

// Lookup resolves an event name in any vocabulary the suite knows (every
// dialect's, the canonical kinds', snake_case Claude names), or Unknown.
func Lookup(name string) Kind { return universal[strings.ToLower(name)] }
