package agent

import (
	"bytes"
	"hash/fnv"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// devin is Devin CLI ("Devin for Terminal", Cognition's devin command): hooks
// of its own in a project's .devin/hooks.v1.json (the events as the file's
// own keys), and by default Claude Code's too (read_config_from.claude),
// run with Claude Code's field names, its own lower-case tool names (exec,
// edit, read, grep, glob) and DEVIN_PROJECT_DIR in the environment. It
// reads {"decision":"approve"|"block"|"deny","reason":…} back, not Claude
// Code's hookSpecificOutput. Written from its documentation, which is all
// there is (docs.devin.ai/cli/extensibility/hooks; docs/reference/grok-devin-qoder.md):
// testdata/agents/devin-from-docs.
//
// What the documentation leaves open, and what is done about it:
//   - session_id and hook_event_name are not documented: a payload without
//     a session is keyed on the devin process that ran the hook, else on
//     the project (devinSession), so that two sessions never merge; one
//     without an event name is nothing, unless its hook line names it (the
//     lines install writes do: Positional);
//   - PostToolUse's tool_response is {success, output, error}: a tool that
//     failed says success false (refineDevin).
var devin = &Dialect{
	Agent:   "devin",
	Aliases: []string{"devin-cli"},
	Title:   "Devin CLI",
	Product: "devin-cli",
	// Its payload is Claude Code's shape: what tells it is the variable it
	// sets for its hooks, when a hook of Claude Code's runs (Devin reads
	// Claude Code's settings) and Claude Code did not send it.
	Runs: func(flag string, p gjson.Result, getenv func(string) string) bool {
		return runsClaudeHook(flag) && getenv("DEVIN_PROJECT_DIR") != "" && !sentByClaude(p, getenv)
	},
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"UserPromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PermissionRequest", Permission, false},
		{"PostToolUse", ToolEnd, false},
		{"Stop", TurnEnd, false},
		{"PostCompaction", Unknown, false}, // after it compacted: nothing left to say
		{"SessionEnd", SessionEnd, false},
	},
	Paths: Paths{
		Error:      []string{"tool_response.error"},
		ToolOutput: []string{"tool_response.output"},
		SessionKey: devinSession,
	},
	Refine: refineDevin,
	Tools: map[string]string{
		"exec": Bash, "edit": Edit, "read": Read, "grep": Grep, "glob": Glob,
	},
	Settings: &Settings{
		// A project's .devin/hooks.v1.json, the events as the file's own
		// keys; a user-level file is not documented: no user scope.
		Project: []string{".devin", "hooks.v1.json"},
		Strict:  true, Shape: TopLevel, Unit: time.Second,
		// The matcher is a regular expression on tool_name.
		Matched: []string{"PreToolUse", "PermissionRequest", "PostToolUse"}, MatchAll: ".*",
		// No payload is documented to name its event: each line names it.
		Positional: true,
		// It runs Claude Code's hooks, and Cursor's (read_config_from).
		Borrows:  []Agent{Claude, Cursor},
		Commands: []string{"devin"},
	},
	Reply:    devinReply,
	Approves: func(ev Event) bool { return ev.Name == "PermissionRequest" },
}

// runsClaudeHook: a hook line of Claude Code's, which names no agent (or
// names it), is the one an agent that reads Claude Code's settings runs.
func runsClaudeHook(flag string) bool {
	flag = strings.ToLower(flag)
	return flag == "" || flag == string(Claude) || slices.Contains(claude.Aliases, flag)
}

// sentByClaude: Claude Code sent the payload itself: it names the session
// Claude Code names in its hooks' environment, or its transcript is Claude
// Code's. An agent started from a Claude Code session (or Claude Code from
// another agent's terminal) inherits the other's variables: these tell
// whose hook it is.
func sentByClaude(p gjson.Result, getenv func(string) string) bool {
	if s := p.Get("session_id").Str; s != "" && getenv("CLAUDE_CODE_SESSION_ID") == s {
		return true
	}
	return strings.Contains(filepath.ToSlash(p.Get("transcript_path").Str), "/.claude/projects/")
}

func refineDevin(ev *Event, p gjson.Result) {
	if ev.Kind == ToolEnd && p.Get("tool_response.success").Type == gjson.False {
		ev.OK = false
	}
}

// devinSession keys a session whose payload names none: the devin process
// that runs it (its pid and start time: a pid is reused), found above the
// hook past the shells between them; where there is no /proc, the project.
func devinSession(getenv func(string) string) string {
	_, pid := HookProcess()
	for range maxHops {
		b, err := ProcStat(pid)
		if err != nil || pid <= 1 {
			break
		}
		if !isShell(commOf(b)) {
			if start := statField(b, 22); start != "" {
				return "devin." + strconv.Itoa(pid) + "." + start
			}
			break
		}
		pid = ppidOf(b)
	}
	dir := getenv("DEVIN_PROJECT_DIR")
	if dir == "" {
		return ""
	}
	h := fnv.New64a()
	h.Write([]byte(dir))
	return "devin." + strconv.FormatUint(h.Sum64(), 36)
}

// isShell: the shells an agent runs a hook's command line in.
func isShell(comm string) bool {
	switch comm {
	case "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "busybox", "env":
		return true
	}
	return false
}

// commOf is the command name of a /proc/<pid>/stat line (field 2, which
// may hold spaces and parentheses).
func commOf(b []byte) string {
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if i < 0 || j < i {
		return ""
	}
	return string(b[i+1 : j])
}

// statField is field n (1-based, as proc(5) counts) of a /proc/<pid>/stat
// line, counted after the command name.
func statField(b []byte, n int) string {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || n < 3 {
		return ""
	}
	f := bytes.Fields(b[i+1:]) // field 3 on
	if len(f) < n-2 {
		return ""
	}
	return string(f[n-3])
}

// devinReply: a PermissionRequest is answered {"decision":"approve"} or
// {"decision":"deny","reason":…}; nothing otherwise (an empty stdout
// changes nothing).
func devinReply(name string, r Reply) string {
	if name != "PermissionRequest" || len(r.UpdatedInput) > 0 {
		return ""
	}
	switch r.Decision {
	case Allow, Always:
		return `{"decision":"approve","reason":"Approved from ` + by(r) + `"}`
	case Deny:
		return `{"decision":"deny","reason":"Denied from ` + by(r) + `"}`
	}
	return ""
}
