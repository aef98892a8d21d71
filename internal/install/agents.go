// Package install writes a binary's hooks into each agent's settings, takes
// them out again, prints them for people who edit their settings by hand,
// and checks an installation (doctor).
package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// shape is how an agent lays out its hooks.
type shape int

const (
	// nested: {"hooks": {"Event": [{"matcher": "*", "hooks": [{"type":
	// "command", "command": …, "timeout": …}]}]}} (Claude Code, Codex, Gemini CLI)
	nested shape = iota
	// named: {"<name>": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}],
	// "Stop": [handler]}}, one top-level entry per tool (Antigravity)
	named
	// flat: {"version": 1, "hooks": {"event": [{"command": …, "timeout": …}]}} (Cursor)
	flat
	// file: a file of our own, {"version": 1, "hooks": {"event": [{"type":
	// "command", "bash": …, "timeoutSec": …}]}} (Copilot CLI)
	file
)

// An Agent is where and how one agent keeps its hooks.
type Agent struct {
	Name string
	// user and project are the settings file (for file: the directory), from
	// the home directory and from the project's root.
	user, project []string
	// strict: the agent parses plain JSON; otherwise JSON with comments.
	strict bool
	shape  shape
	// unit of the timeout field.
	unit time.Duration
	// positional: the agent's payload does not name its event, so each hook
	// line names it.
	positional bool
	// matched are the events whose entries take a matcher.
	matched []string
	// withoutTimeout are events whose hooks get no timeout: the agent's own
	// budget for them is the right one.
	withoutTimeout []string
	// maxTimeout caps the timeout of some events at what the agent accepts
	// (Codex clamps SessionEnd and Interrupt to 3 s, and warns about every
	// entry above it on every session start).
	maxTimeout map[string]time.Duration
	// homeVar names the environment variable that moves the agent's user
	// settings, and homeRel is the settings' path under it.
	homeVar string
	homeRel []string
	// trust says the agent runs a new or changed hook only once the user has
	// trusted it (Codex): install says how, doctor checks it.
	trust bool
}

// Agents are the agents install knows, by the --agent name.
var Agents = map[string]*Agent{
	"claude": {Name: "claude", user: []string{".claude", "settings.json"}, project: []string{".claude", "settings.json"},
		strict: true, shape: nested, unit: time.Second, homeVar: "CLAUDE_CONFIG_DIR", homeRel: []string{"settings.json"},
		matched: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"},
		// SessionEnd hooks get 1.5 s unless a timeout raises it: keep it.
		withoutTimeout: []string{"SessionEnd"}},
	"codex": {Name: "codex", user: []string{".codex", "hooks.json"}, project: []string{".codex", "hooks.json"},
		strict: true, shape: nested, unit: time.Second, homeVar: "CODEX_HOME", homeRel: []string{"hooks.json"}, trust: true,
		matched:    []string{"PreToolUse", "PostToolUse", "PermissionRequest"},
		maxTimeout: map[string]time.Duration{"SessionEnd": 3 * time.Second, "Interrupt": 3 * time.Second}},
	"gemini": {Name: "gemini", user: []string{".gemini", "settings.json"}, project: []string{".gemini", "settings.json"},
		shape: nested, unit: time.Millisecond, homeVar: "GEMINI_CLI_HOME", homeRel: []string{".gemini", "settings.json"},
		matched: []string{"BeforeTool", "AfterTool"}},
	"antigravity": {Name: "antigravity", user: []string{".gemini", "config", "hooks.json"}, project: []string{".agents", "hooks.json"},
		strict: true, shape: named, unit: time.Second, positional: true,
		matched: []string{"PreToolUse", "PostToolUse"}},
	"cursor": {Name: "cursor", user: []string{".cursor", "hooks.json"}, project: []string{".cursor", "hooks.json"},
		strict: true, shape: flat, unit: time.Second},
	"copilot": {Name: "copilot", user: []string{".copilot", "hooks"}, project: []string{".github", "hooks"},
		strict: true, shape: file, unit: time.Second, positional: true, homeVar: "COPILOT_HOME", homeRel: []string{"hooks"}},
}

// AgentNames lists the agents in a stable order.
func AgentNames() []string {
	names := make([]string, 0, len(Agents))
	for n := range Agents {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Path is the settings file the agent reads, for a scope: "user" (under
// home, or under the agent's own variable when it is set: CLAUDE_CONFIG_DIR,
// CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME) or "project" (under dir).
func (a *Agent) Path(scope, home, project, binary string, getenv func(string) string) (string, error) {
	var p string
	switch scope {
	case "", "user":
		if d := a.home(getenv); d != "" {
			p = filepath.Join(append([]string{d}, a.homeRel...)...)
			break
		}
		if home == "" {
			return "", fmt.Errorf("no home directory: give --settings")
		}
		p = filepath.Join(append([]string{home}, a.user...)...)
	case "project":
		p = filepath.Join(append([]string{project}, a.project...)...)
	default:
		return "", fmt.Errorf("scope %q: user or project", scope)
	}
	if a.shape == file {
		p = filepath.Join(p, "hookwire-"+binary+".json")
	}
	return p, nil
}

// home is the agent's config-home variable, when it is set.
func (a *Agent) home(getenv func(string) string) string {
	if a.homeVar == "" || getenv == nil {
		return ""
	}
	return getenv(a.homeVar)
}

// A Spec is what a binary installs: for each agent it supports, the events
// it hooks (in the agent's own names).
type Spec struct {
	Binary string
	Events map[string][]string
	// Timeout is each hook's timeout; Approval, that of the events that wait
	// for a person (Coucou's approval cards), which must exceed the
	// binary's own wait.
	Timeout, Approval time.Duration
	Approvals         []string
	// Legacy marks entries of what this binary replaces (a substring of
	// their command), so that install updates them too.
	Legacy []string
	// Test is what doctor --send runs.
	Test Test
	// Env are the variables the binary reads where the agent runs it, that
	// an agent may keep from its hooks (Gemini CLI's redaction).
	Env []string
	// StatusLine, when its Flag is set, lets install --statusline make the
	// binary Claude Code's status line too.
	StatusLine StatusLine
	// Args go after the binary's path in every hook line (a combined
	// binary's --surfaces).
	Args []string
}

// Entry is one hook: the agent's event, the command line, its timeout.
type Entry struct {
	Event   string
	Command string
	Timeout time.Duration // 0: none written
	Matched bool
}

// Entries are the hooks of spec for agent a, running the binary at path.
func (s Spec) Entries(a *Agent, path string) []Entry {
	var out []Entry
	for _, ev := range s.Events[a.Name] {
		args := append([]string{quote(path)}, s.Args...)
		if a.Name != "claude" {
			args = append(args, "--agent", a.Name)
		}
		if a.positional {
			args = append(args, ev)
		}
		e := Entry{Event: ev, Command: strings.Join(args, " "), Timeout: s.Timeout, Matched: slices.Contains(a.matched, ev)}
		if slices.Contains(s.Approvals, ev) {
			e.Timeout = s.Approval
		}
		if slices.Contains(a.withoutTimeout, ev) {
			e.Timeout = 0
		}
		if m, ok := a.maxTimeout[ev]; ok && e.Timeout > m {
			e.Timeout = m
		}
		out = append(out, e)
	}
	return out
}

// quote makes a path one shell word.
func quote(p string) string {
	if strings.ContainsAny(p, " \t\"'$`\\&;|<>()*?[]#~") {
		return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return p
}

// owns reports whether a command line runs this binary (any path, any
// arguments, through sh or not) or what it replaces.
func (s Spec) owns(command string) bool {
	prog := words(command)
	if len(prog) > 1 && (prog[0] == "/bin/sh" || prog[0] == "sh" || prog[0] == "/bin/bash" || prog[0] == "bash") {
		prog = prog[1:] // Coucou's installer writes /bin/sh "…/nb-hook"
	}
	if len(prog) > 0 && strings.TrimSuffix(filepath.Base(strings.ReplaceAll(prog[0], `\`, "/")), ".exe") == s.Binary {
		return true
	}
	for _, l := range s.Legacy {
		if strings.Contains(command, l) {
			return true
		}
	}
	return false
}

// words splits a command line as a shell would, for the quoting install
// writes and people use: '…', "…", and a backslash before a quote, a space
// or a backslash (elsewhere a backslash is kept: Windows paths).
func words(line string) []string {
	var out []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && quote != '\'' && i+1 < len(line) && strings.IndexByte(`"'\ `, line[i+1]) >= 0:
			i++
			w.WriteByte(line[i])
			in = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}
