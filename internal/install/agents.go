// Package install writes a binary's hooks into each agent's settings, takes
// them out again, prints them for people who edit their settings by hand,
// and checks an installation (doctor).
package install

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
)

// A Var is an environment variable and what it means.
type Var = hook.Var

// An Agent is where and how one agent keeps its hooks: its dialect's
// Settings (internal/agent, one file per agent).
type Agent struct {
	Name string
	*agent.Settings
	dialect *agent.Dialect
}

// Agents are the agents install knows, by the --agent name.
var Agents = func() map[string]*Agent {
	m := map[string]*Agent{}
	for _, d := range agent.Installable() {
		m[string(d.Agent)] = &Agent{Name: string(d.Agent), Settings: d.Settings, dialect: d}
	}
	return m
}()

// AgentNames lists the agents in a stable order.
func AgentNames() []string { return agent.InstallableNames() }

// Title is the agent's name for people.
func (a *Agent) Title() string { return a.dialect.Title }

// Path is the settings file the agent reads, for a scope: "user" (under
// home, or under the agent's own variable when it is set: CLAUDE_CONFIG_DIR,
// CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME) or "project" (under dir).
func (a *Agent) Path(scope, home, project, binary string, getenv func(string) string) (string, error) {
	var p string
	switch scope {
	case "", "user":
		if len(a.User) == 0 {
			return "", fmt.Errorf("%s reads no user settings that are known: install it in a project (--scope project)", a.Name)
		}
		d := a.ConfigHome(getenv, home)
		if d == "" {
			return "", fmt.Errorf("no home directory: give --settings")
		}
		p = filepath.Join(append([]string{d}, a.HomeRel...)...)
	case "project":
		if len(a.Project) == 0 {
			return "", fmt.Errorf("%s reads no project settings: install it for your user (--scope user)", a.Name)
		}
		p = filepath.Join(append([]string{project}, a.Project...)...)
	default:
		return "", fmt.Errorf("scope %q: user or project", scope)
	}
	if a.OwnFile() {
		p = filepath.Join(p, a.FileName(binary))
	}
	return p, nil
}

// A Spec is what a binary installs: the kinds of event it consumes. Each
// agent's hooks are the events of those kinds, in its own names (its
// dialect's Events).
type Spec struct {
	Binary string
	// Former is a binary of the past whose hook lines this one's replace,
	// and a plan names (hookwire-client, the warm path's client, which
	// earlier setups wrote): its lines are this binary's to rewrite.
	Former string
	// FormerCheck is what doctor says of what Former left running or
	// lying about (the warm path's workers and socket).
	FormerCheck Check
	Kinds       []agent.Kind
	// Timeout is each hook's timeout; Approval, that of the events of the
	// Approvals kinds, that wait for a person (Coucou's approval cards),
	// which must exceed the binary's own wait.
	Timeout, Approval time.Duration
	Approvals         []agent.Kind
	// ApprovalAt: an agent's event that waits for a person besides those
	// of the Approvals kinds (the consent panel's: Claude Code's
	// PreToolUse, Copilot CLI's permissionRequest); its timeout is
	// Approval too.
	ApprovalAt func(d *agent.Dialect, event string) bool
	// Legacy marks entries of what this binary replaces (a substring of
	// their command), so that install updates them too.
	Legacy []string
	// Test is what doctor --send runs.
	Test Test
	// Env are the binary's own variables, read where the agent runs it:
	// --help and docs/environment.md list them with every binary's (hook.Env), and
	// doctor says which of them an agent keeps from its hooks (Gemini CLI's
	// redaction).
	Env []Var
	// StatusLine, when its Flag is set, lets install --statusline make the
	// binary Claude Code's status line too.
	StatusLine StatusLine
	// Args go after the binary's path in every hook line (a combined
	// binary's --surfaces).
	Args []string
	// Ask are kinds of event hooked only when install is asked for them
	// (--approvals): an agent that asks its hooks about every tool it may
	// run (Copilot CLI's permissionRequest), each hook held until a person
	// answers. Their lines carry AskFlag after --agent, and AskArgs in
	// place of Args (a combined binary's --surfaces: only the surface that
	// answers); their timeout is Approval.
	Ask     []agent.Kind
	AskFlag string
	AskArgs []string
	// Asking: the hooks of Ask are wanted (install --approvals).
	Asking bool
}

// Entry is one hook: the agent's event, the command line, its timeout.
type Entry struct {
	Event   string
	Command string
	Timeout time.Duration // 0: none written
	Matched bool
	// Bash is the command for Git Bash on Windows, where an agent takes one
	// beside its PowerShell Command (Copilot CLI's "bash" and "powershell").
	Bash string
}

// Events are the agent's events this binary hooks, in the agent's names.
func (s Spec) Events(a *Agent) []string { return a.dialect.HookNames(s.Kinds) }

// Agents are the names of the agents spec has hooks for, sorted.
func (s Spec) Agents() []string {
	var out []string
	for _, name := range AgentNames() {
		if len(s.Events(Agents[name])) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// Entries are the hooks of spec for agent a, running the binary at path.
func (s Spec) Entries(a *Agent, path string) []Entry {
	var out []Entry
	var asked []string
	if s.Asking {
		asked = s.AskEvents(a)
	}
	for _, ev := range s.Events(a) {
		if slices.Contains(asked, ev) {
			continue // its line is the one that asks, below
		}
		args := append([]string{a.quote(path)}, s.Args...)
		if !a.Unflagged {
			args = append(args, "--agent", a.Name)
		}
		if a.Positional {
			args = append(args, ev)
		}
		e := Entry{Event: ev, Command: strings.Join(args, " "), Timeout: s.Timeout, Matched: slices.Contains(a.Matched, ev)}
		if k, _ := a.dialect.KindOf(ev); slices.Contains(s.Approvals, k) || s.ApprovalAt != nil && s.ApprovalAt(a.dialect, ev) {
			e.Timeout = s.Approval
		}
		if slices.Contains(a.WithoutTimeout, ev) {
			e.Timeout = 0
		}
		if m, ok := a.MaxTimeout[ev]; ok && e.Timeout > m {
			e.Timeout = m
		}
		out = append(out, e)
	}
	if s.Asking {
		out = append(out, s.askEntries(a, asked, path)...)
	}
	if onWindows {
		for i := range out {
			out[i].Bash = quoteFor(agent.ShellBash, path) + strings.TrimPrefix(out[i].Command, a.quote(path))
		}
	}
	return out
}

// askEntries are the hooks --approvals adds, on the events asked.
func (s Spec) askEntries(a *Agent, asked []string, path string) []Entry {
	var out []Entry
	for _, ev := range asked {
		args := append([]string{a.quote(path)}, s.Args...)
		if s.AskArgs != nil {
			args = append([]string{a.quote(path)}, s.AskArgs...)
		}
		if !a.Unflagged {
			args = append(args, "--agent", a.Name)
		}
		args = append(args, s.AskFlag)
		if a.Positional {
			args = append(args, ev)
		}
		out = append(out, Entry{Event: ev, Command: strings.Join(args, " "), Timeout: s.Approval, Matched: slices.Contains(a.Matched, ev)})
	}
	return out
}

// AskEvents are the agent's events of the Ask kinds that are not hooked
// already: what --approvals adds. A combined binary's (AskArgs) line
// takes the place of the one that would serve its other surfaces there
// (the consent panel's Copilot CLI permissionRequest): AskArgs names them
// too.
func (s Spec) AskEvents(a *Agent) []string {
	var out []string
	for _, ev := range a.dialect.HookNames(s.Ask) {
		if s.AskArgs != nil || !slices.Contains(s.Events(a), ev) {
			out = append(out, ev)
		}
	}
	return out
}

// quote makes a path one word of the shell the agent runs its hooks in:
// sh's on Linux and macOS; on Windows the agent's WindowsShell's, where a
// path in single quotes runs in none of them (cmd.exe: "not recognized").
func (a *Agent) quote(p string) string {
	if !onWindows {
		if strings.ContainsAny(p, " \t\"'$`\\&;|<>()*?[]#~") {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
		return p
	}
	return quoteFor(a.WindowsShell, p)
}

// onWindows: the paths install writes are Windows paths, for Windows
// shells. A variable so that tests on Linux write them too.
var onWindows = runtime.GOOS == "windows"

// quoteFor quotes a Windows path for shell (docs/reference/windows-shells.md).
// A path with nothing special to cmd.exe or PowerShell runs bare in both;
// Git Bash needs quotes around any backslash.
func quoteFor(shell agent.Shell, p string) string {
	bare := !strings.ContainsAny(p, " \t\"'$`&;|<>()*?[]{}#~%!^,=+@")
	switch shell {
	case agent.ShellBash:
		// In double quotes a backslash stays, but before \ $ ` " (and at
		// the end) it escapes: double it there.
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c == '$' || c == '`' || c == '"':
				b.WriteByte('\\')
			case c == '\\' && (i+1 == len(p) || strings.IndexByte("\\$`\"", p[i+1]) >= 0):
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
		return b.String()
	case agent.ShellPowerShell:
		if bare {
			return p
		}
		// A quoted path is a string to PowerShell: & calls it. Single
		// quotes: nothing in them expands ('' is a quote).
		return "& '" + strings.ReplaceAll(p, "'", "''") + "'"
	default:
		if bare {
			return p
		}
		return `"` + p + `"`
	}
}

// owns reports whether a command line runs this binary (any path, any
// arguments, through sh or not) or what it replaces.
func (s Spec) owns(command string) bool {
	prog := words(command)
	if len(prog) > 1 && prog[0] == "&" {
		prog = prog[1:] // PowerShell's call operator: & 'C:\…\nb-hook.exe'
	}
	if len(prog) > 1 && (prog[0] == "/bin/sh" || prog[0] == "sh" || prog[0] == "/bin/bash" || prog[0] == "bash") {
		prog = prog[1:] // Coucou's installer writes /bin/sh "…/nb-hook"
	}
	if len(prog) > 0 {
		if name := strings.TrimSuffix(filepath.Base(strings.ReplaceAll(prog[0], `\`, "/")), ".exe"); name == s.Binary || s.Former != "" && name == s.Former {
			return true
		}
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
