package agent

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// qwen is Qwen Code (a Gemini CLI fork that took Claude Code's hooks):
// Claude's event and field names, an ISO timestamp on every payload, its
// own tool names, and a few lifecycle quirks (refineQwen). Recorded:
// testdata/agents/qwen-0.24.4.
var qwen = &Dialect{
	Agent:   "qwen",
	Aliases: []string{"qwen-code"},
	Title:   "Qwen Code",
	Product: "qwen-code",
	Detect:  detectQwen,
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"InstructionsLoaded", Unknown, false}, // a context file read at start
		{"UserPromptSubmit", Prompt, false},    // or nothing: see refineQwen
		{"UserPromptExpansion", Unknown, false},
		{"PreToolUse", ToolStart, false},
		{"PermissionRequest", Permission, false}, // fires before PreToolUse
		{"PermissionDenied", Unknown, false},
		{"PostToolUse", ToolEnd, false},
		{"PostToolUseFailure", ToolEnd, false},
		// After each batch of tool calls, with a call refused before it
		// started (no PreToolUse) too: nothing left open to close.
		{"PostToolBatch", Unknown, false},
		// The narration and the answer, each message once or twice: the
		// turn end carries the answer.
		{"MessageDisplay", Unknown, false},
		{"Notification", Attention, false}, // or nothing: see refineQwen
		{"SubagentStart", SubagentStart, false},
		{"SubagentStop", SubagentStop, false},
		{"TodoCreated", Unknown, false},
		{"TodoCompleted", Unknown, false},
		{"Stop", TurnEnd, false},
		{"StopFailure", Error, false},
		{"PreCompact", Compact, false},
		{"PostCompact", Unknown, false},
		{"SessionEnd", SessionEnd, false},
		{"SessionDelete", Unknown, false},
	},
	Refine: refineQwen,
	Tools: map[string]string{
		"run_shell_command": Bash, "read_file": Read, "write_file": Write, "edit": Edit,
		"grep_search": Grep, "glob": Glob, "list_directory": LS, "web_fetch": WebFetch,
		"web_search": WebSearch, "todo_write": TodoWrite, "save_memory": Memory, "agent": Task,
		"skill": Skill, "ask_user_question": AskUserQuestion, "enter_plan_mode": EnterPlanMode,
		"exit_plan_mode": ExitPlanMode, "notebook_edit": NotebookEdit, "read_mcp_resource": ReadMcpResource,
	},
	// read_file took absolute_path before 0.24.
	Args: []Alias{{"absolute_path", ArgFilePath}},
	// The chat, transcript_path in every payload, has each model call's
	// usage (transcript.Qwen).
	Burn: &Burn{Format: transcript.Qwen},
	// Qwen tells its hooks the pid of the qwen process the user started
	// (its launcher, which relaunches itself as a child: hook ← child ←
	// launcher) and the session.
	Owns: func(pid int, session string, getenv func(string) string) bool {
		return session != "" && getenv("QWEN_CODE_SESSION_ID") == session &&
			getenv("QWEN_CODE_LAUNCHER_PID") == strconv.Itoa(pid)
	},
	Settings: &Settings{
		User: []string{".qwen", "settings.json"}, Project: []string{".qwen", "settings.json"},
		HomeVar: "QWEN_HOME", HomeRel: []string{"settings.json"},
		// A command hook's timeout was milliseconds up to 0.15; from 0.24 it
		// is seconds below 1000 and milliseconds from 1000 on: milliseconds
		// of at least a second mean the same to both.
		Shape: Nested, Unit: time.Millisecond,
		Matched: []string{"PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"qwen"},
		// cmd.exe (/d /s /c), but bash -c when Qwen was started from Git
		// Bash (getShellConfiguration, 0.24.4): double quotes, which both
		// read, and bash needs around a backslash
		// (docs/reference/windows-shells.md).
		WindowsShell: ShellBash,
	},
	// Claude Code's replies: hookSpecificOutput with PermissionRequest's
	// decision.behavior (Qwen reads no updatedPermissions; it sends no
	// suggestions either).
	Reply:    claudeReply,
	Approves: func(Event) bool { return true },
}

// detectQwen: the payload's transcript is Qwen's chat,
// …/projects/<project>/chats/<session id>.jsonl (Claude Code's has no chats
// folder, Gemini CLI's is named session-<date>-<id>.jsonl).
func detectQwen(p gjson.Result) bool {
	path, session := p.Get("transcript_path").Str, p.Get("session_id").Str
	if path == "" || session == "" {
		return false
	}
	dir, base := filepath.Split(filepath.ToSlash(path))
	return base == session+".jsonl" && filepath.Base(dir) == "chats"
}

func refineQwen(ev *Event, p gjson.Result) {
	refineClaude(ev, p)
	switch ev.Name {
	case "UserPromptSubmit":
		// Qwen fires it again, with prompt "", before each model call that
		// follows a tool: not a new turn, and nothing the tool's end did not
		// already say (the model is thinking again).
		if p.Get("prompt").Str == "" {
			ev.Kind = Unknown
		}
	case "Notification":
		switch ev.Reason {
		case "auth_success":
			// At every start of a headless run: nobody is waiting.
			ev.Kind = Unknown
		case "idle_prompt":
			// Right after every Stop in its interactive UI (Claude Code's
			// comes after a minute of silence): the turn end said it.
			ev.Kind = Unknown
		}
	}
	// tool_use_id is Qwen's own (toolu_<ms>_<random>); tool_call_id is the
	// model's, the one its transcript and PostToolBatch use.
	if id := p.Get("tool_call_id").Str; id != "" {
		ev.ToolUseID = id
	}
}
