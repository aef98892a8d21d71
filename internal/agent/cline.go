package agent

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// cline is Cline CLI (npm cline, its engine @cline/core): command hooks are
// executables in a hooks folder, each named after its event (TaskStart,
// PreToolUse, …, any case, an extension among a few Cline knows, or none:
// then the file's #! runs it). The payload's hookName is Cline's internal
// name (agent_start, tool_call, tool_result, agent_end), one per several
// events, so the event is the name of the file that ran: install writes a
// script per event that hands it to the binary as an argument (Positional).
// Fields are camelCase: taskId, sessionContext.rootSessionId (the session's
// folder under ~/.cline/data/sessions), workspaceRoots, and the tool as
// tool_call/tool_result {id, name, input, output, error} beside
// preToolUse/postToolUse {toolName, parameters (each value a string),
// result, success}. Observed on 3.0.65 (testdata/agents/cline-3.0.65).
var cline = &Dialect{
	Agent:   "cline",
	Title:   "Cline CLI",
	Product: "cline-cli",
	Events: []Name{
		// Once per task: `cline "…"` runs one task and exits (no
		// SessionShutdown then). Cline does not wait for its hooks: they
		// are ahead of the first tool's by the model's first answer, which
		// a real API takes far longer to give than they take to run.
		{"TaskStart", SessionStart, false},
		{"TaskResume", SessionStart, false},
		// Before the first model call; in a one-shot run its prompt is
		// Cline's own "[SYSTEM] This run is not complete…" reminder, not the
		// user's words: nothing (refineCline).
		{"UserPromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PostToolUse", ToolEnd, false},
		{"PreCompact", Compact, false},
		// The task's end: turn.outputText is the answer (the output of its
		// submit_and_exit tool, which a task must end with).
		{"TaskComplete", TurnEnd, false},
		{"TaskCancel", Interrupted, false},
		{"TaskError", Error, false},
		{"SessionShutdown", SessionEnd, false},
	},
	Paths: Paths{
		Session:   []string{"sessionContext.rootSessionId", "taskId"},
		Cwd:       []string{"workspaceRoots.0", "workspaceInfo.rootPath"},
		Tool:      []string{"tool_call.name", "tool_result.name", "preToolUse.toolName", "postToolUse.toolName"},
		ToolUseID: []string{"tool_call.id", "tool_result.id"},
		Prompt:    []string{"userPromptSubmit.prompt"},
		Message:   []string{"turn.outputText"},
		Error:     []string{"tool_result.error", "error.message", "taskError.error", "turn.error"},
		// tool_call's input is the model's; preToolUse's parameters hold
		// each value as a string (an array as its JSON).
		ToolInput: []string{"tool_call.input", "tool_result.input"},
		// The command's output, the file read: in both of PostToolUse's
		// shapes.
		ToolOutput: []string{"tool_result.output", "postToolUse.result"},
	},
	Refine: refineCline,
	// The tools 3.0.65 offers the model by default (its team_* tools,
	// with --teams, are kept as they are named).
	Tools: map[string]string{
		"run_commands": Bash, "read_files": Read, "editor": Edit, "apply_patch": ApplyPatch,
		"search_codebase": Grep, "fetch_web_content": WebFetch, "ask_question": AskUserQuestion,
		"skills": Skill,
	},
	ToolArgs: map[string][]Alias{
		"editor":     {{"path", ArgFilePath}, {"old_text", ArgOldString}, {"new_text", ArgNewString}},
		"read_files": {{"file_paths.0", ArgFilePath}},
		// run_commands takes a list: the first command names the call.
		"run_commands": {{"commands.0", ArgCommand}},
	},
	// No payload names a file: the session's record is found from its id
	// (transcript.Cline), where Cline keeps it: $CLINE_SESSION_DATA_DIR,
	// else $CLINE_DATA_DIR/sessions, else <config home>/data/sessions.
	Burn: &Burn{Format: transcript.Cline, Locate: func(ev Event, getenv func(string) string) string {
		if !SafeID(ev.Session) {
			return ""
		}
		dir := getenv("CLINE_SESSION_DATA_DIR")
		if d := getenv("CLINE_DATA_DIR"); dir == "" && d != "" {
			dir = filepath.Join(d, "sessions")
		}
		if home := clineSettings.ConfigHome(getenv, UserHome(getenv)); dir == "" && home != "" {
			dir = filepath.Join(home, "data", "sessions")
		}
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, ev.Session, ev.Session+".json")
	}},
	Settings: clineSettings,
	Reply:    clineReply,
}

var clineSettings = &Settings{
	User: []string{".cline", "hooks"}, Project: []string{".clinerules", "hooks"},
	HomeVar: "CLINE_DIR", HomeRel: []string{"hooks"},
	Shape: EventFiles, Unit: time.Second, Positional: true,
	// On Windows too its hooks' loader runs a file by its shebang, so
	// hookwire's #!/bin/sh file runs in sh (Git Bash's): the lines'
	// paths are quoted for it (cline 3.0.65, @cline/core's hooks loader;
	// docs/reference/windows-shells.md).
	WindowsShell: ShellBash,

	// Its commands: one on PATH tells hookwire setup it is installed.
	Commands: []string{"cline"},
}

func refineCline(ev *Event, p gjson.Result) {
	// agent_id is on every payload, the lead agent's too: only one with a
	// parent is a subagent (a teammate).
	if p.Get("parent_agent_id").Str == "" {
		ev.Subagent = ""
	}
	switch ev.Name {
	case "UserPromptSubmit":
		// Cline's reminder to end with submit_and_exit (a one-shot run's
		// only UserPromptSubmit) is no person's words, and no turn of
		// theirs: nothing. It is not waited for, nor is TaskStart, 150 ms
		// before it, and it reached surfaces first one run in two, the
		// session's start then putting them back to idle mid-turn.
		if strings.HasPrefix(ev.Prompt, "[SYSTEM]") {
			ev.Prompt, ev.Kind = "", Unknown
		}
	case "PostToolUse":
		if p.Get("postToolUse.success").Type == gjson.False {
			ev.OK = false
		}
	case "TaskComplete":
		// The answer is submit_and_exit's output, which Cline heads with
		// its own words.
		if _, a, ok := strings.Cut(ev.Message, "Submission recorded"); ok && strings.HasPrefix(ev.Message, "Submission recorded") {
			if _, a, ok = strings.Cut(a, ": "); ok {
				ev.Message = a
			}
		}
		if s := p.Get("turn.status").Str; s != "" && s != "completed" {
			ev.Kind = Error
		}
	}
}

// clineReply: a PreToolUse hook may cancel the tool, on stdout; Cline
// reads nothing else, and an empty stdout lets the tool run.
func clineReply(name string, r Reply) string {
	if name == "PreToolUse" && r.Decision == Deny {
		return `{"cancel":true,"errorMessage":"Denied from ` + by(r) + `"}`
	}
	return ""
}
