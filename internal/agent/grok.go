package agent

import (
	"time"

	"github.com/tidwall/gjson"
)

// grok is Grok Build (xAI's grok CLI): hooks of its own (~/.grok/hooks/*.json,
// [[hooks.<Event>]] in ~/.grok/config.toml), and by default Claude Code's
// too (~/.claude/settings*.json, a project's .claude/settings*.json) and
// Cursor's ~/.cursor/hooks.json, each run with Grok's own envelope: camelCase
// fields (hookEventName, sessionId, toolName, toolInput, toolResult, …),
// snake_case event values (pre_tool_use), Grok's tool names
// (run_terminal_command), and GROK_HOOK_EVENT, GROK_SESSION_ID,
// GROK_WORKSPACE_ROOT and CLAUDE_PROJECT_DIR in the environment. Written
// from its source (xai-org/grok-build@19d42e35, crates/codegen/xai-grok-hooks:
// event.rs, runner/command.rs, runner/mod.rs; docs/reference/grok-devin-qoder.md);
// its payloads here are written from that source
// (testdata/agents/grok-19d42e35-from-source).
//
// What a surface must not show, and where it is handled:
//   - a Stop fires again at the session's end, observe-only, with a reason
//     other than end_turn (refineGrok: nothing; session_end follows);
//   - a turn cut short fires stop_cancelled instead of stop: interrupted
//     when the user cut it, an error when the runtime gave up (max_turns,
//     no_progress);
//   - a subagent runs as a session of its own (its sessionId, subagentType
//     on its events) that no payload links to its parent's: its events are
//     nothing, and so are subagent_start (fired in the parent) and
//     subagent_stop (fired in the subagent), a pair no surface could match;
//   - it has no PermissionRequest: a person is asked in Grok's own UI, and a
//     permission_prompt notification says so (Permission, not answerable).
var grok = &Dialect{
	Agent:   "grok",
	Aliases: []string{"grok-build"},
	Title:   "Grok Build",
	Product: "grok-build",
	// Its envelope is its own whichever hook line runs (Claude Code's,
	// Cursor's, its own): camelCase hookEventName, which no other agent
	// sends, with its session.
	Runs:   func(_ string, p gjson.Result, _ func(string) string) bool { return isGrokEnvelope(p) },
	Detect: isGrokEnvelope,
	Events: []Name{
		{"session_start", SessionStart, false},
		{"user_prompt_submit", Prompt, false},
		{"pre_tool_use", ToolStart, false},
		{"post_tool_use", ToolEnd, false},
		{"post_tool_use_failure", ToolEnd, false},
		// The permission system refused a tool: no end of it follows (the
		// surfaces close a tool left open at the turn's end).
		{"permission_denied", Unknown, false},
		{"notification", Attention, false}, // permission_prompt: Permission (refineGrok)
		// A subagent's start (in the parent's session) and its stop (in the
		// subagent's own): no pair a surface could close, so neither.
		{"subagent_start", Unknown, false},
		{"subagent_stop", Unknown, false},
		{"subagent_end", Unknown, false}, // subagent_stop's old name
		{"stop", TurnEnd, false},
		{"stop_failure", Error, false},
		{"stop_cancelled", Interrupted, false}, // or Error: refineGrok
		{"pre_compact", Compact, false},
		{"post_compact", Unknown, false},
		{"session_end", SessionEnd, false},
	},
	Paths: Paths{
		Session: []string{"sessionId"}, Cwd: []string{"workspaceRoot"}, Transcript: []string{"transcriptPath"},
		Tool: []string{"toolName"}, ToolUseID: []string{"toolUseId"},
		Message: []string{"lastAssistantMessage"}, Model: []string{"modelId"},
		Reason: []string{"notificationType"}, Subagent: []string{"subagentId"},
		ToolInput: []string{"toolInput"}, ToolOutput: []string{"toolResult"},
		SessionEnv: "GROK_SESSION_ID",
	},
	Refine: refineGrok,
	// Its tools (crates/codegen/xai-grok-tools, types/claude_alias.rs: the
	// Claude names its matchers take for each).
	Tools: map[string]string{
		"run_terminal_command": Bash, "read_file": Read, "hashline_read": Read, "write": Write,
		"search_replace": Edit, "hashline_edit": Edit, "grep": Grep, "hashline_grep": Grep,
		"list_dir": LS, "web_search": WebSearch, "web_fetch": WebFetch, "todo_write": TodoWrite,
		"ask_user_question": AskUserQuestion, "get_command_or_subagent_output": BashOutput,
		"get_terminal_command_output": BashOutput, "kill_command_or_subagent": KillShell,
		"kill_terminal_command": KillShell, "skill": Skill, "spawn_subagent": Task,
		"enter_plan_mode": EnterPlanMode, "exit_plan_mode": ExitPlanMode,
	},
	ToolArgs: map[string][]Alias{
		"read_file": {{"target_file", ArgFilePath}}, "list_dir": {{"target_directory", ArgPath}},
	},
	Settings: &Settings{
		// A file of our own in ~/.grok/hooks (Claude Code's layout, every
		// file there loaded); a project's .grok/hooks runs once the
		// folder is trusted. The event keys are Grok's own names, which it
		// takes as they are.
		User: []string{".grok", "hooks"}, Project: []string{".grok", "hooks"},
		HomeVar: "GROK_HOME", HomeRel: []string{"hooks"},
		Strict: true, Shape: NestedFile, Unit: time.Second,
		Matched: []string{"pre_tool_use", "post_tool_use", "post_tool_use_failure"},

		// It runs ~/.claude/settings.json's and ~/.cursor/hooks.json's
		// hooks too, unless told not to ([compat.claude] hooks = false).
		Borrows: []Agent{Claude, Cursor},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"grok"},
	},
	Reply: grokReply,
}

// isGrokEnvelope: Grok's HookEventEnvelope, whose camelCase hookEventName
// and sessionId no other agent sends (Claude Code's are hook_event_name
// and session_id).
func isGrokEnvelope(p gjson.Result) bool {
	return p.Get("hookEventName").Type == gjson.String && p.Get("sessionId").Exists()
}

func refineGrok(ev *Event, p gjson.Result) {
	if p.Get("subagentType").Exists() {
		// From inside a subagent, whose session is its own: none of its
		// events is the parent session's to show.
		ev.Kind = Unknown
		return
	}
	switch ev.Name {
	case "notification":
		if ev.Reason == "permission_prompt" {
			ev.Kind = Permission
		}
	case "post_tool_use_failure":
		ev.OK = false
	case "stop":
		if r := p.Get("reason").Str; r != "" && r != "end_turn" {
			ev.Kind = Unknown // the session's end: session_end follows
		}
	case "stop_failure":
		// error is the class (rate_limit, …), errorDetails the text.
		ev.ErrorType, ev.Error = p.Get("error").Str, p.Get("errorDetails").Str
	case "stop_cancelled":
		if p.Get("cancelledBy").Str != "user" {
			// The runtime gave up (max_turns, no_progress) or cannot say.
			ev.Kind, ev.ErrorType = Error, ev.Reason
			if ev.Error = p.Get("reasonDetails").Str; ev.Error == "" {
				ev.Error = ev.Reason
			}
		}
	}
}

// grokReply: Grok reads {"decision":"allow"|"deny","reason":…} after a
// pre_tool_use hook, and a changed input in hookSpecificOutput.updatedInput;
// Claude Code's permissionDecision is not read. It reads nothing else.
func grokReply(name string, r Reply) string {
	if name != "pre_tool_use" {
		return ""
	}
	switch r.Decision {
	case Allow, Always:
		if len(r.UpdatedInput) > 0 && isObject(r.UpdatedInput) {
			return `{"decision":"allow","hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":` + string(compact(r.UpdatedInput)) + `}}`
		}
		return `{"decision":"allow"}`
	case Deny:
		return `{"decision":"deny","reason":"Denied from ` + by(r) + `"}`
	}
	return ""
}
