package agent

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// kimi is Kimi Code (the kimi command of @moonshot-ai/kimi-code, 2.x):
// Claude Code's event names and snake_case fields, a few events of its own,
// `[[hooks]]` tables in ~/.kimi-code/config.toml. Recorded:
// testdata/agents/kimi-2.1.0.
//
// What a surface must not show, and where it is handled:
//   - UserPromptSubmit's prompt is a list of parts (refineKimi), and
//     TurnStarted says the same again (Unknown);
//   - SessionStart's model is the config's alias, in -p mode the
//     placeholder __kimi_env_model__ (refineKimi drops it);
//   - Stop carries no answer and no transcript path: both are in the
//     session's wire.jsonl, found from the session id (kimiWire);
//   - a tool call the model got wrong (invalid arguments) fires
//     PostToolUseFailure without a PreToolUse (the surfaces close only
//     what they opened);
//   - PermissionRequest, PostToolUse, StopFailure and Interrupt are fired
//     and forgotten: no hook can answer an approval, and one still running
//     when the turn ends is killed;
//   - -p mode fires no SessionEnd.
var kimi = &Dialect{
	Agent:   "kimi",
	Aliases: []string{"kimi-code"},
	Title:   "Kimi Code",
	Product: "kimi-code",
	// Every payload names its client.
	Detect: func(p gjson.Result) bool { return strings.HasPrefix(p.Get("client_type").Str, "kimi_code") },
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"UserPromptSubmit", Prompt, false},
		{"UserPromptQueued", Unknown, false}, // a prompt typed while a turn runs
		{"TurnStarted", Unknown, false},      // after UserPromptSubmit, the same prompt
		{"PreToolUse", ToolStart, false},
		{"PermissionRequest", Permission, false},
		{"PermissionResult", Unknown, false}, // answered: the tool's end follows
		{"PostToolUse", ToolEnd, false},
		{"PostToolUseFailure", ToolEnd, false},
		{"TaskStarted", Unknown, false},  // a background task
		{"Notification", Unknown, false}, // a background task's news, for the model
		{"SubagentStart", SubagentStart, false},
		{"SubagentStop", SubagentStop, false},
		{"Stop", TurnEnd, false},
		{"StopFailure", Error, false},
		{"Interrupt", Interrupted, false},
		{"PreCompact", Compact, false},
		{"PostCompact", Unknown, false},
		{"SessionHeartbeat", Unknown, false},
		{"SessionEnd", SessionEnd, false},
	},
	Paths: Paths{
		// SubagentStart names the subagent by its name.
		Subagent:   []string{"agent_name"},
		ToolOutput: []string{"tool_output"},
	},
	Refine: refineKimi,
	Tools: map[string]string{
		"bash": Bash, "read": Read, "write": Write, "edit": Edit, "glob": Glob, "grep": Grep,
		"fetchurl": WebFetch, "websearch": WebSearch, "agent": Task, "todolist": TodoWrite,
		"askuserquestion": AskUserQuestion, "enterplanmode": EnterPlanMode, "exitplanmode": ExitPlanMode,
		"skill": Skill,
	},
	// path is the file of its file tools, the folder of its searches.
	ToolArgs: map[string][]Alias{
		"read": {{"path", ArgFilePath}}, "write": {{"path", ArgFilePath}}, "edit": {{"path", ArgFilePath}},
	},
	Burn:     &Burn{Format: transcript.Kimi, Locate: kimiWire, Unnamed: true},
	Answer:   kimiAnswer,
	Settings: kimiSettings,
	// PreToolUse is the one hook Kimi waits on for a decision: a deny (or
	// exit 2) refuses the tool; nothing approves one.
	Reply: kimiReply,
}

// kimiSettings: [[hooks]] tables in config.toml, under KIMI_CODE_HOME
// (default ~/.kimi-code). The project scope writes .kimi-code/config.toml
// in the project, which Kimi Code 2.1.0 was not seen to read (its project
// files are local.toml and mcp.json): the user scope is the one to use.
var kimiSettings = &Settings{
	// No project scope: Kimi Code 2.1.0 reads its hooks from config.toml in
	// its home only (a project's files are local.toml and mcp.json).
	User:    []string{".kimi-code", "config.toml"},
	HomeVar: "KIMI_CODE_HOME", HomeRel: []string{"config.toml"},
	Strict: true, Shape: Tables, Unit: time.Second,

	// Its commands: one on PATH tells hookwire setup it is installed.
	Commands: []string{"kimi"},
}

func refineKimi(ev *Event, p gjson.Result) {
	refineClaude(ev, p)
	if strings.HasPrefix(ev.Model, "__") {
		ev.Model = "" // __kimi_env_model__: the model the environment names
	}
	if ev.Name == "UserPromptSubmit" {
		var parts []string
		for _, part := range p.Get("prompt").Array() {
			if part.Get("type").Str == "text" {
				parts = append(parts, part.Get("text").Str)
			}
		}
		ev.Prompt = strings.Join(parts, "\n")
	}
}

// kimiWire is the session's wire.jsonl, where Kimi writes each model call's
// usage and the turn's answer:
// $KIMI_CODE_HOME/sessions/wd_<folder>_<hash>/<session>/agents/main/wire.jsonl.
func kimiWire(ev Event, getenv func(string) string) string {
	home := kimiSettings.ConfigHome(getenv, UserHome(getenv))
	if home == "" || !SafeID(ev.Session) {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(home, "sessions", "wd_*", ev.Session, "agents", "main", "wire.jsonl"))
	if len(m) != 1 {
		return ""
	}
	return m[0]
}

// kimiAnswer: Stop has no answer; the wire has it, written behind (on a
// loaded machine, after Stop fires): it waits for it as Copilot CLI's.
func kimiAnswer(ev *Event, wait time.Duration) {
	if ev.Message != "" {
		return
	}
	for deadline := time.Now().Add(wait); ; {
		if a, found, _ := transcript.KimiAnswer(ev.Transcript, transcript.TailLimits{}); found {
			ev.Message, ev.AnswerPending = a, false
			return
		}
		ev.AnswerPending = true
		if time.Now().Add(copilotPoll).After(deadline) {
			return
		}
		time.Sleep(copilotPoll)
	}
}

func kimiReply(name string, r Reply) string {
	if name == "PreToolUse" && r.Decision == Deny {
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied from ` + by(r) + `"}}`
	}
	return ""
}
