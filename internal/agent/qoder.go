package agent

import (
	"time"

	"github.com/tidwall/gjson"
)

// qoder is Qoder CLI (the qodercli command of @qoder-ai/qodercli): a
// Claude Code clone in its hooks, Claude Code's events, field and tool
// names and replies (PermissionRequest's hookSpecificOutput.decision), a
// few events of its own, hooks in ~/.qoder/settings.json, a project's
// .qoder/settings.json and .qoder/settings.local.json, and QODER_PROJECT_DIR
// beside CLAUDE_PROJECT_DIR for every hook. Its migrate step copies a
// project's .claude hooks into its settings, where they run as Qoder's.
// Written from its hooks guide and bundle (1.1.52,
// bundle/builtin/hook-config/SKILL.md, bundle/qodercli.js;
// docs/reference/grok-devin-qoder.md): testdata/agents/qoder-1.1.52-from-guide.
// It cannot run here (it needs a Qoder login).
var qoder = &Dialect{
	Agent:   "qoder",
	Aliases: []string{"qodercli", "qoder-cli"},
	Title:   "Qoder CLI",
	Product: "qoder-cli",
	// A hook of Claude Code's it runs (one its migrate step copied) is
	// told by the variable it sets for every hook.
	Runs: func(flag string, p gjson.Result, getenv func(string) string) bool {
		return runsClaudeHook(flag) && getenv("QODER_PROJECT_DIR") != "" && !sentByClaude(p, getenv)
	},
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"InstructionsLoaded", Unknown, false},
		{"UserPromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PermissionRequest", Permission, false},
		{"PermissionDenied", Unknown, false},
		{"PostToolUse", ToolEnd, false},
		{"PostToolUseFailure", ToolEnd, false},
		{"Notification", Attention, false},
		{"SubagentStart", SubagentStart, false},
		{"SubagentStop", SubagentStop, false},
		{"TeammateIdle", Unknown, false},
		{"Stop", TurnEnd, false},
		{"StopFailure", Error, false},
		{"PreCompact", Compact, false},
		{"PostCompact", Unknown, false},
		{"ConfigChange", Unknown, false},
		{"CwdChanged", Unknown, false},
		{"FileChanged", Unknown, false},
		{"WorktreeCreate", Unknown, false},
		{"WorktreeRemove", Unknown, false},
		{"TaskCreated", Unknown, false},
		{"TaskCompleted", Unknown, false},
		{"Elicitation", Unknown, false},
		{"ElicitationResult", Unknown, false},
		{"SessionEnd", SessionEnd, false},
	},
	Refine: refineClaude,
	Tools:  claude.Tools,
	Settings: &Settings{
		User: []string{".qoder", "settings.json"}, Project: []string{".qoder", "settings.json"},
		HomeRel: []string{"settings.json"},
		// Its guide writes JSON with comments.
		Shape: Nested, Unit: time.Second,
		// Its matcher is a regular expression (the guide).
		Matched: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"}, MatchAll: ".*",

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"qodercli", "qoder"},
	},
	Reply:    claudeReply,
	Approves: func(Event) bool { return true },
}
