package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// claude is Claude Code: snake_case hook JSON named by hook_event_name, the
// shape every other Claude-like agent copies, and the vocabulary the suite
// speaks (paths, tools.go). A payload no other dialect claims is its.
var claude = &Dialect{
	Agent:   Claude,
	Aliases: []string{"claude-code", "claude-desktop"},
	Title:   "Claude Code",
	Product: "claude-code",
	Detect:  func(gjson.Result) bool { return true },
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"UserPromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PermissionRequest", Permission, false},
		{"PostToolUse", ToolEnd, false},
		{"PostToolUseFailure", ToolEnd, false},
		{"Notification", Attention, false},
		{"SubagentStart", SubagentStart, false},
		{"SubagentStop", SubagentStop, false},
		{"Stop", TurnEnd, false},
		{"StopFailure", Error, false},
		{"PreCompact", Compact, false},
		{"SessionEnd", SessionEnd, false},
	},
	// Claude Code also names the session in its hooks' environment.
	Paths: Paths{SessionEnv: "CLAUDE_CODE_SESSION_ID"},
	// Its names are the vocabulary; these are other versions' names.
	Tools: map[string]string{
		"agent": Task, "slashcommand": Skill, "killbash": KillShell, "taskstop": KillShell,
		"taskoutput": BashOutput,
	},
	ToolArgs: map[string][]Alias{"slashcommand": {{"command", ArgSkill}}},
	Refine:   refineClaude,
	Burn:     &Burn{Format: transcript.Claude},
	Answer:   tailAnswer,
	Settings: claudeSettings,
	Reply:    claudeCodeReply,
	Approves: func(Event) bool { return true },
	Owns:     claudeOwns,
}

// claudeOwns: Claude Code writes <config>/sessions/<pid>.json for each
// running process, naming its session. That file is undocumented, hence
// the exact match.
func claudeOwns(pid int, session string, getenv func(string) string) bool {
	dir := claudeSettings.ConfigHome(getenv, UserHome(getenv))
	if dir == "" || session == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, "sessions", strconv.Itoa(pid)+".json"))
	return err == nil && gjson.GetBytes(b, "sessionId").String() == session
}

// tailAnswer: a turn end without its answer (Claude Code's Stop before
// last_assistant_message, or with it empty; Cursor's stop, always) finds it
// at the end of the transcript, complete when the hook fires: the last
// assistant entry, in Claude Code's shape (Cursor writes role and message
// alike).
func tailAnswer(ev *Event, _ time.Duration) {
	if strings.TrimSpace(ev.Message) != "" {
		return
	}
	text, found, err := transcript.LastAssistantText(ev.Transcript, transcript.TailLimits{})
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		ev.Notes = append(ev.Notes, "transcript: "+err.Error())
	case err != nil:
		ev.Notes = append(ev.Notes, "no last assistant message, and the transcript "+ev.Transcript+" does not exist")
	case !found:
		ev.Notes = append(ev.Notes, "no last assistant message, and none at the end of the transcript")
	default:
		ev.Notes = append(ev.Notes, "the last assistant message was read from the transcript")
		ev.Message = text
	}
}

func refineClaude(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "Notification":
		if ev.Reason == "permission_prompt" {
			ev.Kind = Permission
			if ev.Tool == "" {
				// It names the tool only in words: "Claude needs your
				// permission to use Bash".
				if _, rest, ok := strings.Cut(ev.Message, "permission to use "); ok {
					if f := strings.Fields(rest); len(f) > 0 {
						ev.Tool = f[0]
					}
				}
			}
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

// claudeCodeReply: Claude Code also takes a decision from a PreToolUse
// hook (allow runs the tool without asking, deny refuses it with the
// reason), which the Noctalia consent panel answers on, in the words of the
// plugin's own hook (claude-companion hooks/consent.py _emit). The rest is
// claudeReply's.
func claudeCodeReply(name string, r Reply) string {
	if name != "PreToolUse" || len(r.UpdatedInput) > 0 {
		return claudeReply(name, r)
	}
	switch r.Decision {
	case Allow, Always:
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Approved from ` + by(r) + `."}}`
	case Deny:
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied from ` + by(r) + `."}}`
	}
	return ""
}

// claudeReply answers a PermissionRequest: allow (with the suggested rules
// for always, or the answered question's input), or deny; and a PreToolUse
// whose question was answered (the --ask hook). Claude Code reads nothing
// after its other hooks.
func claudeReply(name string, r Reply) string {
	if name == "PreToolUse" && r.Decision == Allow && len(r.UpdatedInput) > 0 && json.Valid(r.UpdatedInput) {
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":` +
			string(compact(r.UpdatedInput)) + `}}`
	}
	if name != "PermissionRequest" {
		return ""
	}
	switch r.Decision {
	case Allow, Always:
		decision := `{"behavior":"allow"`
		switch {
		case len(r.UpdatedInput) > 0 && json.Valid(r.UpdatedInput):
			decision += `,"updatedInput":` + string(compact(r.UpdatedInput))
		case r.Decision == Always && len(bytes.TrimSpace(r.Suggestions)) > 0 && json.Valid(r.Suggestions):
			decision += `,"updatedPermissions":` + string(compact(r.Suggestions))
		}
		return permissionOutput(decision + `}`)
	case Deny:
		return permissionOutput(`{"behavior":"deny","message":"Denied from ` + by(r) + `"}`)
	}
	return ""
}

func permissionOutput(decision string) string {
	return `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":` + decision + `}}`
}

// by names who decided, in a denial's message.
func by(r Reply) string {
	if r.By == "" {
		return "hookwire"
	}
	return r.By
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// claudeSettings are Claude Code's Settings: its Owns finds the config home through them,
// as install does (Settings.ConfigHome).
var claudeSettings = &Settings{
	User: []string{".claude", "settings.json"}, Project: []string{".claude", "settings.json"},
	HomeVar: "CLAUDE_CONFIG_DIR", HomeRel: []string{"settings.json"},
	Strict: true, Shape: Nested, Unit: time.Second,
	Matched: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"},
	// SessionEnd hooks get 1.5 s unless a timeout raises it: keep it.
	WithoutTimeout: []string{"SessionEnd"},
	Unflagged:      true, StatusLine: true,

	// Its commands: one on PATH tells hookwire setup it is installed.
	Commands: []string{"claude"},
	// Git Bash: a hook without "shell" runs in bash -c on Windows (the
	// hooks reference; docs/reference/windows-shells.md).
	WindowsShell: ShellBash,
}
