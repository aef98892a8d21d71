package agent

import (
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
			"PreCompress":  Compact,
			"AfterModel":   Text, // fires per streamed chunk: never installed by default
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
			"permissionRequest":   Permission,
			"notification":        Attention,
			"agentStop":           TurnEnd,
			"errorOccurred":       Error,
			"preCompact":          Compact,
			"subagentStart":       SubagentStart,
			"subagentStop":        SubagentStop,
			"sessionEnd":          SessionEnd,
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
		add(snake(name), k)
	}
	return u
}()

// snake turns PreToolUse into pre_tool_use.
func snake(s string) string {
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
	case Attention:
		if ev.Reason == "ToolPermission" {
			ev.Kind = Permission
		}
	case ToolEnd:
		if e := p.Get("tool_response.error"); e.Exists() && e.Type != gjson.Null && e.String() != "" {
			ev.OK = false
			if ev.Error == "" {
				ev.Error = errorText(e)
			}
		}
	}
}

func refineAntigravity(ev *Event, p gjson.Result) {
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
	switch ev.Name {
	case "postToolUse":
		if r := p.Get("toolResult.resultType").String(); r != "" && r != "success" {
			ev.OK = false
		}
	case "postToolUseFailure":
		ev.OK = false
	}
}

// Lookup resolves an event name in any vocabulary the suite knows (every
// dialect's, the canonical kinds', snake_case Claude names), or Unknown.
func Lookup(name string) Kind { return universal[strings.ToLower(name)] }
