package hook

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/remote"
)

// A Var is an environment variable a binary reads, with what it means: the
// one source of the variable tables in --help and docs/environment.md.
type Var struct {
	Name string
	// Also are other names that mean the same (a peer's spelling of it).
	Also []string
	Help string
}

// Names are the variable's names, Name first.
func (v Var) Names() []string { return append([]string{v.Name}, v.Also...) }

// Env are the variables every binary reads.
var Env = []Var{
	{Name: EnvDryRun, Help: "non-empty: do everything, send nothing, print exactly what would be sent"},
	{Name: EnvLog, Help: "append one JSON line per invocation to this file (credentials redacted)"},
	{Name: agent.EnvSession, Help: "a script's session, when --session is not given"},
	{Name: "XDG_RUNTIME_DIR", Help: "state lives in $XDG_RUNTIME_DIR/hookwire (else hookwire-<uid> in the temp directory)"},
	{Name: remote.EnvStateHome, Help: "a relay is set up when $XDG_STATE_HOME/hookwire/relay (else ~/.local/state/hookwire/relay) exists: what Pulse, Coucou and VPet, absent here, would get goes to it, for a desktop (docs/remote.md)"},
	{Name: "NO_COLOR", Help: "no colours in doctor's output (it colours only a terminal anyway)"},
}

// Environ is a command that knows its binary's own variables (install's
// commands, from the binary's Spec): --help lists them.
type Environ interface{ Environment() []Var }

// environment is the binary's own variables, then every binary's.
func (b *Binary) environment() []Var {
	var own []Var
	for _, c := range b.Commands {
		if e, ok := c.CLI.(Environ); ok {
			own = e.Environment()
			break
		}
	}
	vars := append(own, Env...)
	// One entry each: Agents says whose each home is.
	vars = append(vars, merge(HomeVars(), "the agents' config homes (Agents, below): install and doctor find their settings there"))
	return append(vars, merge(SessionVars(), "the session, when the agent's payload names none (the agent sets it for its hooks)"))
}

// merge is one entry for vars, with help.
func merge(vars []Var, help string) Var {
	v := Var{Help: help}
	for _, x := range vars {
		if v.Name == "" {
			v.Name = x.Name
		} else {
			v.Also = append(v.Also, x.Name)
		}
	}
	return v
}

// SessionVars are the variables in which agents name the session to their
// hooks, read when the payload does not (each dialect's Paths.SessionEnv).
func SessionVars() []Var {
	var out []Var
	for _, d := range agent.Dialects() {
		if e := d.Paths.SessionEnv; e != "" {
			out = append(out, Var{Name: e, Help: fmt.Sprintf("the session, when %s's payload names none (%s sets it for its hooks)", d.Title, d.Title)})
		}
	}
	return out
}

// HomeVars are the agents' config-home variables, which install and doctor
// read to find each agent's settings.
func HomeVars() []Var {
	var out []Var
	// Agents that share a variable (opencode and its fork Kilo Code CLI,
	// both under XDG_CONFIG_HOME) share its line, when all else is alike.
	titles := map[string][]string{}
	for _, d := range agent.Installable() {
		if s := d.Settings; s.HomeVar != "" {
			titles[s.HomeVar] = append(titles[s.HomeVar], d.Title+"'s")
		}
	}
	seen := map[string]bool{}
	for _, d := range agent.Installable() {
		if s := d.Settings; s.HomeVar != "" {
			who, whose := d.Title+"'s", "its"
			if t := titles[s.HomeVar]; len(t) > 1 && (d.Burn == nil || d.Burn.Locate == nil) && d.Owns == nil {
				if seen[s.HomeVar] {
					continue
				}
				seen[s.HomeVar] = true
				who, whose = strings.Join(t[:len(t)-1], ", ")+" and "+t[len(t)-1], "their"
			}
			help := fmt.Sprintf("%s config home (default %s): install and doctor find %s settings there", who, DefaultHome(s), whose)
			// Locate and Owns look under the same home (Settings.ConfigHome).
			if d.Burn != nil && d.Burn.Locate != nil {
				help += "; the token burn finds its transcript there when a hook does not name it"
			}
			if d.Owns != nil {
				help += "; its session records there name the agent's process (PULSE_PID's default)"
			}
			out = append(out, Var{Name: s.HomeVar, Help: help})
		}
	}
	return out
}

// DefaultHome is where an agent's config home is when its variable is not
// set: the user settings' path without the part under the home.
func DefaultHome(s *agent.Settings) string {
	return filepath.ToSlash(s.ConfigHome(nil, "~"))
}

// envHelp is the Environment section of --help: each variable, and what it
// means below it.
func envHelp(vars []Var) string {
	var b strings.Builder
	b.WriteString("Environment:\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "  %s\n", strings.Join(v.Names(), ", "))
		for _, l := range wrap(v.Help, helpWidth-10) {
			fmt.Fprintf(&b, "      %s\n", l)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// helpWidth is the width --help's own sections are wrapped to, kong's
// indent of a preformatted block included.
const helpWidth = 80

// wrap breaks text into lines of at most width bytes, at spaces (a longer
// word gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// agentsHelp is the Agents section of --help: each --agent name, and where
// install writes its hooks.
func agentsHelp() string {
	var b strings.Builder
	b.WriteString("Agents (--agent NAME, when the payload does not say whose it is):\n")
	rows := [][2]string{}
	width := 0
	for _, d := range agent.Dialects() {
		name := strings.Join(append([]string{string(d.Agent)}, d.Aliases...), ", ")
		where := "no hooks to install"
		if s := d.Settings; s != nil {
			where = "~/" + filepath.ToSlash(filepath.Join(s.User...))
			if s.HomeVar != "" {
				where += ", or $" + s.HomeVar
			}
		}
		rows = append(rows, [2]string{name, d.Title + ": " + where})
		width = max(width, len(name))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, r[0], r[1])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// help is the binary's description for --help: its own text, then what
// every binary shares, from the data it comes from (the agents' dialects,
// the binary's Spec).
func (b *Binary) help() string {
	script := ScriptHelp
	if !b.NoWrap {
		script += "\n" + WrapHelp
	}
	return b.Help + "\n\n" + envHelp(b.environment()) + "\n\n" + agentsHelp() + "\n\n" +
		strings.ReplaceAll(script, "<binary>", b.Name)
}

// helpText is (*Binary).help, or a test's.
var helpText = (*Binary).help

// dialectNames are the --agent names of every dialect, for a hook's --agent
// flag (${dialects}).
func dialectNames() string {
	var names []string
	for _, d := range agent.Dialects() {
		names = append(names, string(d.Agent))
	}
	return strings.Join(names, ", ")
}
