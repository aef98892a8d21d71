package agent

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// Droid is Factory Droid (the droid command of @factory/cli).
const Droid Agent = "droid"

// droid is Factory Droid 0.225: Claude Code's event names, fields and reply,
// nine of its events (no PermissionRequest, PostToolUseFailure, StopFailure
// or SubagentStart), its own tool names, and no text, model or time in any
// payload. Recorded in testdata/agents/droid-0.225.1 (its README says how).
//
// What a surface must not show, and where it is handled:
//   - a tool that fails, is refused or is interrupted fires no PostToolUse
//     (the surfaces close a tool left open at the turn's end);
//   - Stop carries no answer, and fires alike for an answer, a failed model
//     request and a cancelled tool: message_id names the transcript record
//     that tells them apart (droidOutcome);
//   - `droid exec` fires no UserPromptSubmit: a headless turn shows no prompt;
//   - the TUI's /quit fires SessionEnd twice;
//   - the session's usage is in <id>.settings.json beside the transcript,
//     never in it (transcript.Droid);
//   - a SessionStart hook's plain stdout goes into the model's context:
//     nothing is printed after any hook but an answer (droidReply).
var droid = &Dialect{
	Agent:   Droid,
	Aliases: []string{"factory", "factory-droid"},
	Title:   "Factory Droid",
	Product: "factory-droid",
	// Every payload names its transcript, under ~/.factory/sessions/.
	Detect: func(p gjson.Result) bool {
		return strings.Contains(filepath.ToSlash(p.Get("transcript_path").Str), "/.factory/sessions/")
	},
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"UserPromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PostToolUse", ToolEnd, false},
		{"Notification", Attention, false}, // permission_prompt: see refineDroid
		{"SubagentStop", SubagentStop, false},
		{"Stop", TurnEnd, false}, // or Error, Interrupted: see droidOutcome
		{"PreCompact", Compact, false},
		{"SessionEnd", SessionEnd, false},
	},
	// The tools Droid offers a Claude model (exec and the TUI); AskUser,
	// TaskOutput, Skill, … have no canonical name.
	Tools: map[string]string{
		"execute": "Bash", "read": "Read", "create": "Write", "edit": "Edit",
		"ls": "LS", "grep": "Grep", "glob": "Glob", "fetchurl": "WebFetch", "websearch": "WebSearch",
		"task": "Task", "todowrite": "TodoWrite",
	},
	// Execute's summary says what the command does; Edit names its strings
	// as old_str/new_str, LS its folder as directory_path.
	Args:   []Alias{{"summary", "description"}, {"old_str", "old_string"}, {"new_str", "new_string"}, {"directory_path", "path"}},
	Refine: refineDroid,
	Burn:   &Burn{Format: transcript.Droid},
	// The TUI and exec write a "user" record right after each hook.
	HookRecords: true,
	Outcome:     droidOutcome,
	// Droid reads hooks from ~/.factory/hooks.json and a project's
	// .factory/hooks.json (the event names as their top-level keys; a
	// Claude-style {"hooks": …} block there is silently ignored), and from
	// the "hooks" key of settings.json, merged per event; for an event both
	// define, hooks.json's entries run and settings.json's do not. So
	// hooks.json is where hooks must be: Droid's documented home, where its
	// /hooks menu writes, and the one that wins (Droid also rewrites
	// settings.json whenever it saves a setting, dropping comments).
	Settings: &Settings{
		User: []string{".factory", "hooks.json"}, Project: []string{".factory", "hooks.json"},
		// FACTORY_HOME_OVERRIDE stands for the home directory: ~/.factory moves with it.
		HomeVar: "FACTORY_HOME_OVERRIDE", HomeRel: []string{".factory", "hooks.json"},
		Strict: true, Shape: TopLevel, Unit: time.Second,
		Matched: []string{"PreToolUse", "PostToolUse"},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"droid"},
	},
	Reply: droidReply,
}

func refineDroid(ev *Event, p gjson.Result) {
	if ev.Name == "Notification" && ev.Reason == "permission_prompt" {
		ev.Kind = Permission // the TUI asks a person to approve a tool
	}
}

// droidOutcome: Stop names the record that ended the turn (message_id),
// which Droid has written when Stop fires. An assistant message is the
// answer; a message for the user alone, a failed model request ("BYOK
// Error: …"); a refused or interrupted tool's result, a turn the user cut
// short. The record is written when Stop fires, and its answer comes with
// it (a surface that shows none ignores it).
func droidOutcome(ev *Event) {
	if ev.Message != "" {
		return
	}
	end, text, found, _ := transcript.DroidTurnEnd(ev.Transcript, ev.Get("message_id").Str, transcript.TailLimits{})
	if !found {
		return
	}
	switch end {
	case transcript.DroidAnswered:
		ev.Message = text
	case transcript.DroidFailed:
		ev.Kind, ev.Error = Error, text
	case transcript.DroidCancelled:
		ev.Kind = Interrupted
	}
}

// droidReply: Droid reads Claude Code's PreToolUse answer (allow runs a tool
// its autonomy level would refuse, deny refuses it with the reason) and
// parses the stdout of any hook that prints a JSON object; a SessionStart
// hook's other output goes into the model's context. Nothing otherwise.
func droidReply(name string, r Reply) string {
	if name != "PreToolUse" || len(r.UpdatedInput) > 0 {
		return ""
	}
	switch r.Decision {
	case Allow, Always:
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`
	case Deny:
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied from ` + by(r) + `"}}`
	}
	return ""
}
