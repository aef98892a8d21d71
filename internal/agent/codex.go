package agent

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// codex is Codex CLI: Claude-shaped hook JSON with a turn_id, and its
// legacy notify program, whose JSON is the last argument.
var codex = &Dialect{
	Agent:  Codex,
	Title:  "Codex",
	Detect: detectCodex,
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"UserPromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PermissionRequest", Permission, false},
		{"PostToolUse", ToolEnd, false},
		{"SubagentStart", SubagentStart, false},
		{"SubagentStop", SubagentStop, false},
		{"Stop", TurnEnd, false},
		{"StopFailure", Error, false},
		// Interrupt is the one signal Codex gives for a turn the user cut
		// short.
		{"Interrupt", Interrupted, false},
		{"PreCompact", Compact, false},
		{"SessionEnd", SessionEnd, false},
		// The legacy notify program's kebab-case types.
		{"agent-turn-start", Prompt, true},
		{"agent-turn-complete", TurnEnd, true},
	},
	Paths: Paths{
		Session: []string{"thread-id"},
		Prompt:  []string{"input-messages.@reverse.0"},
		Message: []string{"last-assistant-message"},
	},
	// Its hooks name the shell Bash; the other names are its tools' own,
	// which its app server and older versions use. A command may be argv
	// (["bash","-lc","cargo test"]): nameTool makes it a line.
	Tools: map[string]string{
		"shell": Bash, "local_shell": Bash, "exec_command": Bash, "container.exec": Bash,
		"apply_patch": ApplyPatch, "update_plan": TodoWrite, "web_search": WebSearch,
		"view_image": ViewImage, "write_stdin": BashInput,
	},
	Args: []Alias{{"cmd", ArgCommand}},
	ToolArgs: map[string][]Alias{
		"apply_patch": {{"input", ArgPatch}, {"command", ArgPatch}},
		"view_image":  {{"path", ArgFilePath}},
	},
	Refine: refineCodex,
	Burn: &Burn{Format: transcript.Codex, Locate: func(ev Event, getenv func(string) string) string {
		return codexRollout(codexSettings.ConfigHome(getenv, UserHome(getenv)), ev.Session)
	}},
	Settings: codexSettings,
	Reply:    codexReply,
	Approves: func(Event) bool { return true },
}

func detectCodex(p gjson.Result) bool {
	if strings.HasPrefix(p.Get("type").String(), "agent-turn-") {
		return true // notify
	}
	if p.Get("turn_id").Exists() {
		return true
	}
	// SessionStart and SessionEnd carry no turn_id; the transcript is a
	// rollout file (~/.codex/sessions/…/rollout-….jsonl).
	path := p.Get("transcript_path").String()
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
}

func refineCodex(ev *Event, p gjson.Result) {
	refineClaude(ev, p)
	if strings.EqualFold(ev.Tool, "apply_patch") {
		// The file a patch edits is in its text: the first one is the
		// file_path.
		in := gjson.ParseBytes(ev.ToolInput)
		for _, k := range []string{"input", "patch", "command"} {
			if f := patchFile(in.Get(k).String()); f != "" && in.IsObject() && !in.Get(ArgFilePath).Exists() {
				ev.ToolInput = setFields(ev.ToolInput, in, []arg{{ArgFilePath, strconv.Quote(f)}})
				break
			}
		}
	}
	// `codex exec` runs one turn and fires no SessionEnd: its notify turn
	// end is the session's last.
	if ev.Name == "agent-turn-complete" && p.Get("client").Str == "codex_exec" {
		ev.Final = true
	}
}

// codexReply answers a PermissionRequest as Claude Code's, without
// updatedPermissions: Codex fails a hook that answers them. It takes no
// changed input either, so an answered question is no answer.
func codexReply(name string, r Reply) string {
	if len(r.UpdatedInput) > 0 {
		return ""
	}
	if r.Decision == Always {
		r.Decision = Allow
	}
	r.Suggestions = nil
	return claudeReply(name, r)
}

// codexRollout finds the rollout of a Codex thread:
// <home>/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl. A UUIDv7 id
// starts with its creation time in milliseconds, so only that day's
// directory (and its neighbours, for time zones) is listed.
func codexRollout(home, id string) string {
	if home == "" || !SafeID(id) {
		return ""
	}
	ms, ok := UUIDv7Time(id)
	if !ok {
		return ""
	}
	t := time.UnixMilli(ms)
	for _, d := range []time.Time{t, t.UTC(), t.Add(-24 * time.Hour), t.Add(24 * time.Hour)} {
		dir := filepath.Join(home, "sessions", d.Format("2006"), d.Format("01"), d.Format("02"))
		if m, _ := filepath.Glob(filepath.Join(dir, "rollout-*-"+id+".jsonl")); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// patchFile is the first file an apply_patch patch touches ("*** Update
// File: src/lib.rs").
func patchFile(p string) string {
	for line := range strings.Lines(p) {
		for _, marker := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(strings.TrimSpace(line), marker); ok {
				return strings.TrimSpace(f)
			}
		}
	}
	return ""
}

// codexSettings are Codex's Settings: its Burn.Locate finds the config home through them,
// as install does (Settings.ConfigHome).
var codexSettings = &Settings{
	User: []string{".codex", "hooks.json"}, Project: []string{".codex", "hooks.json"},
	HomeVar: "CODEX_HOME", HomeRel: []string{"hooks.json"},
	Strict: true, Shape: Nested, Unit: time.Second,
	// Codex skips a new or changed hook, silently, until it is trusted.
	Trust: true, TrustStep: "Codex runs these hooks only once you trust them: start codex, type /hooks and trust %s's hooks\n" +
		"  (or run codex with --dangerously-bypass-hook-trust)",
	Matched: []string{"PreToolUse", "PostToolUse", "PermissionRequest"},
	// Codex clamps these to 3 s, and warns about every entry above it
	// on every session start.
	MaxTimeout: map[string]time.Duration{"SessionEnd": 3 * time.Second, "Interrupt": 3 * time.Second},

	// Its commands: one on PATH tells hookwire setup it is installed.
	Commands: []string{"codex"},
}
