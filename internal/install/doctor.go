package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/text"
)

// Status grades a finding.
type Status int

// The grades. Only Fail makes doctor exit non-zero.
const (
	OK Status = iota
	Info
	Warn
	Fail
)

// A Finding is one thing doctor looked at: what it found, and how to fix it.
type Finding struct {
	Status    Status
	What, Fix string
}

// A Check looks at one thing a binary needs (its target, mostly).
type Check func(getenv func(string) string) []Finding

// Test is the event doctor --send runs the binary with.
type Test struct {
	Args  []string
	Stdin string
}

type doctorCmd struct {
	Send   bool `help:"Also run the hook once with a test event, as an agent would, and report what happened."`
	spec   Spec
	checks []Check
}

// Environment is the binary's own variables, for --help (hook.Environ).
func (c *doctorCmd) Environment() []Var { return c.spec.Env }

// SpecOf is what a binary installs, from its commands (Commands); ok is
// false for a binary without them.
func SpecOf(b hook.Binary) (spec Spec, ok bool) {
	for _, c := range b.Commands {
		if d, ok := c.CLI.(*doctorCmd); ok {
			return d.spec, true
		}
	}
	return Spec{}, false
}

func (c *doctorCmd) Run(con *hook.Console) error {
	bin, err := self()
	findings := []Finding{{Status: OK, What: fmt.Sprintf("%s %s at %s", c.spec.Binary, hook.BuildVersion(), bin)}}
	if err != nil {
		findings[0] = Finding{Status: Warn, What: "cannot tell where this binary is", Fix: "run it by its full path"}
	}
	settings := c.settings(con.Getenv, bin)
	findings = append(findings, settings...)
	if len(c.spec.Kinds) > 0 && !anyInstalled(settings) {
		findings = append(findings, Finding{Status: Warn, What: "no agent runs " + c.spec.Binary + " yet",
			Fix: c.spec.Binary + " install --agent AGENT, for each agent you use: " + strings.Join(c.spec.Agents(), ", ")})
	}
	for _, check := range c.checks {
		findings = append(findings, check(con.Getenv)...)
	}
	findings = append(findings, c.spec.environment(con.Getenv))
	findings = append(findings, stateDir(con.Getenv, c.spec.Binary)...)
	findings = append(findings, debugLog(con.Getenv))
	if c.Send {
		findings = append(findings, c.send(con.Getenv, bin))
	}
	failed := 0
	for _, f := range findings {
		show(con, f)
		if f.Status == Fail {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d problem(s) to fix", failed)
	}
	return nil
}

var marks = map[Status]struct{ mark, color string }{
	OK: {"ok", "\x1b[32m"}, Info: {"--", "\x1b[36m"}, Warn: {"!!", "\x1b[33m"}, Fail: {"XX", "\x1b[31m"},
}

func show(con *hook.Console, f Finding) {
	m := marks[f.Status]
	if con.Color {
		fmt.Fprintf(con.Out, "%s%s\x1b[0m %s\n", m.color, m.mark, f.What)
	} else {
		fmt.Fprintf(con.Out, "%s %s\n", m.mark, f.What)
	}
	if f.Fix != "" {
		fmt.Fprintf(con.Out, "   fix: %s\n", f.Fix)
	}
}

// settings reports, for each agent the binary has hooks for, whether its
// settings hold them and are current.
func (c *doctorCmd) settings(getenv func(string) string, bin string) []Finding {
	home, _ := os.UserHomeDir()
	var out []Finding
	installed := map[string]bool{}
	for _, name := range AgentNames() {
		a := Agents[name]
		if len(c.spec.Events(a)) == 0 {
			continue
		}
		install := fmt.Sprintf("%s install --agent %s", c.spec.Binary, name)
		path, err := a.Path("user", home, "", c.spec.Binary, getenv)
		if err != nil {
			continue
		}
		path = ownLink(path)
		if a.Shape == agent.EventFiles {
			out = append(out, c.spec.eventFilesFinding(a, path, bin, install)...)
			continue
		}
		data, err := safefile.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			out = append(out, Finding{Status: Info, What: fmt.Sprintf("%s: no hooks (%s does not exist)", name, path), Fix: install + ", if you use it"})
			continue
		case errors.Is(err, safefile.ErrUnsafe):
			out = append(out, Finding{Status: Warn, What: fmt.Sprintf("%s: %v: install does not read or write it", name, err),
				Fix: "make it a regular file of yours (or a link to one), then " + install})
			continue
		case err != nil:
			out = append(out, Finding{Status: Fail, What: fmt.Sprintf("%s: %v", name, err)})
			continue
		}
		want, err := c.spec.Install(a, data, bin)
		switch {
		case err != nil:
			out = append(out, Finding{Status: Fail, What: fmt.Sprintf("%s: %s cannot be read: %v", name, path, err), Fix: "fix the file: the agent cannot read it either"})
			continue
		case bytes.Equal(want, data):
			installed[name] = true
			out = append(out, Finding{Status: OK, What: fmt.Sprintf("%s: hooks installed in %s", name, path)})
		case c.spec.installedIn(a, data):
			installed[name] = true
			out = append(out, Finding{Status: Warn, What: fmt.Sprintf("%s: hooks in %s are not this binary's or not all there", name, path), Fix: install})
		default:
			out = append(out, Finding{Status: Info, What: fmt.Sprintf("%s: no hooks in %s", name, path), Fix: install + ", if you use it"})
			continue
		}
		// Hooks of this binary are there: does the agent run them?
		if a.Trust {
			out = append(out, c.spec.codexTrust(path, data)...)
		}
		if a.RedactsEnv {
			out = append(out, c.spec.geminiRedaction(path, data, getenv)...)
		}
	}
	return append(out, twice(c.spec.Binary, installed, getenv, home)...)
}

// twice says which agents run another's hooks, told apart (Grok Build runs
// Claude Code's), where the binary's hooks are in that other's settings:
// each of their events reaches the surfaces as theirs; and warns when the
// binary's hooks are in theirs as well, which delivers each event twice.
func twice(binary string, installed map[string]bool, getenv func(string) string, home string) []Finding {
	var out []Finding
	for _, name := range AgentNames() {
		a := Agents[name]
		for _, b := range a.Borrows {
			if !installed[string(b)] {
				continue
			}
			other := Agents[string(b)].Title()
			if installed[name] {
				out = append(out, Finding{Status: Warn,
					What: fmt.Sprintf("%s: %s runs %s's hooks too, and tells its own events apart: with hooks of its own as well, each of its events reaches the surfaces twice",
						name, a.Title(), other),
					Fix: fmt.Sprintf("%s uninstall --agent %s", binary, name)})
			} else if ok, why := a.found(getenv, home); ok {
				out = append(out, Finding{Status: Info,
					What: fmt.Sprintf("%s: %s (%s) runs %s's hooks too: its events reach the surfaces as its own, once", name, a.Title(), why, other)})
			}
			break
		}
	}
	return out
}

func anyInstalled(fs []Finding) bool {
	for _, f := range fs {
		if f.Status == OK || f.Status == Warn {
			return true
		}
	}
	return false
}

// installedIn reports whether data holds any hook of this binary.
func (s Spec) installedIn(a *Agent, data []byte) bool {
	if a.OwnFile() {
		return true
	}
	out, err := s.Uninstall(a, data)
	return err == nil && !bytes.Equal(out, data)
}

// environment says which of the binary's own variables (--help lists them)
// are set here, and to what; a value whose name looks like a secret is not
// shown, and credentials in the others (a URL's userinfo) are redacted.
func (s Spec) environment(getenv func(string) string) Finding {
	var set []string
	for _, v := range s.Env {
		for _, name := range v.Names() {
			switch value := getenv(name); {
			case value == "":
			case geminiSecretName().MatchString(name):
				set = append(set, name+" (set, not shown)")
			default:
				set = append(set, name+"="+text.Redact(value)) // a URL's userinfo
			}
		}
	}
	if len(set) == 0 {
		if len(s.Env) == 0 {
			return Finding{Status: Info, What: "environment: " + s.Binary + " reads no variable of its own"}
		}
		return Finding{Status: Info, What: "environment: none of " + s.Binary + "'s variables is set here (" + s.Binary + " --help lists them)"}
	}
	return Finding{Status: Info, What: "environment: " + strings.Join(set, ", ") + " (where the agent runs its hooks, its own environment counts)"}
}

func stateDir(getenv func(string) string, binary string) []Finding {
	var out []Finding
	if getenv("XDG_RUNTIME_DIR") == "" {
		if uid, taken := state.Squatted(state.TempRoot()); taken {
			who := "a symbolic link or a file"
			if uid >= 0 && uid != os.Getuid() {
				who = safefile.UserName(uid)
			} else if fi, err := os.Lstat(state.TempRoot()); err == nil && fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
				who = "another user" // Windows: an owner SID, not a uid
			}
			out = append(out, Finding{Status: Warn,
				What: "state directory " + state.TempRoot() + " is taken by " + who + ": state is kept in your cache directory instead",
				Fix:  "have it removed (by its owner or root), or set XDG_RUNTIME_DIR to a directory of yours"})
		}
	}
	st, err := state.Open(getenv, binary)
	if err != nil {
		return append(out, Finding{Status: Fail, What: "state directory: " + err.Error(),
			Fix: "remove it, or set XDG_RUNTIME_DIR to a directory of yours"})
	}
	return append(out, Finding{Status: OK, What: "state directory " + st.Dir()})
}

func debugLog(getenv func(string) string) Finding {
	path := getenv(hook.EnvLog)
	if path == "" {
		return Finding{Status: Info, What: "no debug log (" + hook.EnvLog + " is not set here)",
			Fix: "set " + hook.EnvLog + "=" + hook.SuggestedLog(getenv) + " where the agent runs its hooks, to see each run"}
	}
	f, err := safefile.OpenLog(path)
	if errors.Is(err, safefile.ErrUnsafe) {
		return Finding{Status: Fail, What: "debug log: " + err.Error() + ": the hooks do not write to it",
			Fix: "point " + hook.EnvLog + " at a file in a directory only you can write, such as " + hook.SuggestedLog(getenv)}
	}
	if err != nil {
		return Finding{Status: Fail, What: "debug log: " + err.Error(), Fix: "point " + hook.EnvLog + " at a file you can write"}
	}
	f.Close()
	return Finding{Status: OK, What: "debug log " + path}
}

// send runs the binary as an agent would, with a test event, and reports
// the debug log line it wrote.
func (c *doctorCmd) send(getenv func(string) string, bin string) Finding {
	dir, err := os.MkdirTemp("", "hookwire-doctor-")
	if err != nil {
		return Finding{Status: Fail, What: "test event: " + err.Error()}
	}
	defer os.RemoveAll(dir)
	log := filepath.Join(dir, "log")
	cmd := exec.Command(bin, append(slices.Clone(c.spec.Args), c.spec.Test.Args...)...)
	cmd.Env = append(os.Environ(), hook.EnvLog+"="+log, hook.EnvDryRun+"=")
	cmd.Stdin = strings.NewReader(c.spec.Test.Stdin)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return Finding{Status: Fail, What: "test event: " + err.Error()}
	}
	took := time.Since(start).Round(time.Millisecond)
	var rec struct {
		Outcome, Error string
		Sent           []struct{ To, Reply, Error string }
		Notes          []string
	}
	b, _ := os.ReadFile(log)
	if json.Unmarshal(b, &rec) != nil {
		return Finding{Status: Fail, What: "test event: no record of the run"}
	}
	what := fmt.Sprintf("test event: %s in %v", rec.Outcome, took)
	for _, s := range rec.Sent {
		what += "\n   sent " + s.To
		if s.Reply != "" {
			what += " → " + strings.TrimSpace(s.Reply)
		}
	}
	if rec.Outcome != "ok" {
		return Finding{Status: Fail, What: what + "\n   " + rec.Error, Fix: strings.Join(rec.Notes, "; ")}
	}
	return Finding{Status: OK, What: what}
}
