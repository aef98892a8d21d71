package combined

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/vpet"
)

type remoteDoctor struct {
	Host    string `arg:"" help:"The ssh host."`
	Command string `default:"${relay}" help:"What ssh runs on the host."`
}

// doctorWithin bounds the remote half: ssh's connect and the relay's doctor.
const doctorWithin = 30 * time.Second

// relayReport is what `hookwire relay --doctor` prints: a JSON object.
// Only version, wire and agents are relied on; anything else it says is
// shown as it is.
type relayReport struct {
	Version string          `json:"version"`
	Wire    *int            `json:"wire"`
	Agents  json.RawMessage `json:"agents"`
	rest    map[string]json.RawMessage
}

// Run checks the whole path: ssh, the relay and the hooks there, the wire,
// this desktop's surfaces. Every silence has its fix; any makes it fail.
func (c *remoteDoctor) Run(r *remoteRun) error {
	if c.Host == "" || strings.HasPrefix(c.Host, "-") {
		return usagef("%q is not a host", c.Host)
	}
	con := &hook.Console{Out: r.stdout, Err: r.stderr, Getenv: os.Getenv}
	if f, ok := r.stdout.(*os.File); ok {
		con.Color = isatty.IsTerminal(f.Fd()) && os.Getenv("NO_COLOR") == ""
	}
	var findings []install.Finding
	fmt.Fprintf(r.stdout, "on %s:\n", c.Host)
	remoteSide := c.remote()
	findings = append(findings, remoteSide...)
	for _, f := range remoteSide {
		install.Show(con, f)
	}
	fmt.Fprintln(r.stdout, "on this desktop:")
	for _, s := range []struct {
		name  string
		check install.Check
	}{
		{"noctalia Pulse", func() install.Check { _, c := pulse.ClaudeSurface(); return c }()},
		{"Coucou", func() install.Check { _, c := coucou.Surface(); return c }()},
		{"VPet", func() install.Check { _, c := vpet.Surface(); return c }()},
	} {
		for _, f := range s.check(os.Getenv) {
			f.What = s.name + ": " + f.What
			findings = append(findings, f)
			install.Show(con, f)
		}
	}
	failed := 0
	for _, f := range findings {
		if f.Status == install.Fail {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d problem(s) to fix", failed)
	}
	return nil
}

// remote runs the relay's doctor over ssh and reads its report.
func (c *remoteDoctor) remote() []install.Finding {
	ctx, cancel := context.WithTimeout(context.Background(), doctorWithin)
	defer cancel()
	argv := []string{"ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "--", c.Host, c.Command + " --doctor"}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	last := lastLine(errOut.String())
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return []install.Finding{{Status: install.Fail, What: "ssh is not on PATH", Fix: "install OpenSSH's client"}}
	case ctx.Err() != nil:
		return []install.Finding{{Status: install.Fail, What: fmt.Sprintf("ssh %s did not finish within %v", c.Host, doctorWithin),
			Fix: "check that `ssh " + c.Host + " true` returns at once"}}
	case errors.As(err, &exit) && exit.ExitCode() == 255:
		return []install.Finding{{Status: install.Fail, What: fmt.Sprintf("ssh %s: %s", c.Host, last),
			Fix: "make `ssh " + c.Host + " true` work without a prompt: the host in ~/.ssh/config, its key in your ssh-agent (BatchMode never asks for a password)"}}
	case errors.As(err, &exit) && (exit.ExitCode() == 127 || strings.Contains(last, "not found")):
		return []install.Finding{{Status: install.OK, What: "ssh " + c.Host + " connects"}, {Status: install.Fail,
			What: fmt.Sprintf("%q is not found on %s: %s", c.Command, c.Host, last),
			Fix:  "install hookwire there, on the PATH a non-interactive ssh gets, or give --command '/full/path/to/hookwire relay'"}}
	case err != nil:
		return []install.Finding{{Status: install.OK, What: "ssh " + c.Host + " connects"}, {Status: install.Fail,
			What: fmt.Sprintf("%s --doctor failed on %s (%v): %s", c.Command, c.Host, err, last),
			Fix:  "run `" + c.Command + " --doctor` there and fix what it says"}}
	}
	ok := install.Finding{Status: install.OK, What: "ssh " + c.Host + " connects"}
	rep, perr := parseReport(out.Bytes())
	if perr != nil {
		return []install.Finding{ok, {Status: install.Fail,
			What: fmt.Sprintf("%s --doctor on %s printed no report (%v): a hookwire without the relay", c.Command, c.Host, perr),
			Fix:  "install this desktop's hookwire release (" + hook.BuildVersion() + ") there"}}
	}
	findings := []install.Finding{ok}
	switch {
	case rep.Wire == nil:
		findings = append(findings, install.Finding{Status: install.Fail, What: "the relay's report names no wire version",
			Fix: "install this desktop's hookwire release (" + hook.BuildVersion() + ") there"})
	case *rep.Wire != remote.Version:
		findings = append(findings, install.Finding{Status: install.Fail,
			What: fmt.Sprintf("the relay speaks wire version %d, this hookwire %d", *rep.Wire, remote.Version),
			Fix:  "install the same hookwire release on both machines (here: " + hook.BuildVersion() + ")"})
	default:
		f := install.Finding{Status: install.OK, What: fmt.Sprintf("relay: hookwire %s, wire version %d", clip(rep.Version), *rep.Wire)}
		if rep.Version != hook.BuildVersion() {
			f.What += fmt.Sprintf(" (this desktop: %s)", hook.BuildVersion())
		}
		findings = append(findings, f)
	}
	agents := reportAgents(rep.Agents)
	if len(agents) == 0 {
		findings = append(findings, install.Finding{Status: install.Fail, What: "no agent there has hookwire's hooks",
			Fix: "on " + c.Host + ": hookwire install --agent AGENT, for each agent you use there"})
	} else {
		findings = append(findings, install.Finding{Status: install.OK, What: "hooks installed for: " + strings.Join(agents, ", ")})
	}
	var keys []string
	for k := range rep.rest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		findings = append(findings, install.Finding{Status: install.Info, What: clip(k) + ": " + clip(string(rep.rest[k]))})
	}
	return findings
}

// parseReport reads the relay's report leniently: one JSON object.
func parseReport(b []byte) (relayReport, error) {
	var rep relayReport
	if err := json.Unmarshal(bytes.TrimSpace(b), &rep.rest); err != nil || rep.rest == nil {
		return rep, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &rep); err != nil {
		return rep, err
	}
	delete(rep.rest, "version")
	delete(rep.rest, "wire")
	delete(rep.rest, "agents")
	return rep, nil
}

// reportAgents are the agents a report names: a list of names, a list of
// objects with an agent or name, or an object keyed by agent.
func reportAgents(raw json.RawMessage) []string {
	var names []string
	if json.Unmarshal(raw, &names) == nil {
		return cleanAll(names)
	}
	var objs []map[string]any
	if json.Unmarshal(raw, &objs) == nil {
		for _, o := range objs {
			for _, k := range []string{"agent", "name"} {
				if s, ok := o[k].(string); ok {
					names = append(names, s)
					break
				}
			}
		}
		return cleanAll(names)
	}
	var byName map[string]any
	if json.Unmarshal(raw, &byName) == nil {
		for k, v := range byName {
			if v != false && v != nil {
				names = append(names, k)
			}
		}
		sort.Strings(names)
	}
	return cleanAll(names)
}

func cleanAll(names []string) []string {
	var out []string
	for _, n := range names {
		if n = clip(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// clip is a string from the remote end, safe and short to print.
func clip(s string) string {
	s = text.Keep(text.OneLine(s), func(b byte) bool { return b >= 0x20 && b != 0x7f })
	return text.ClipBytes(s, 120)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := clip(lines[len(lines)-1])
	if l == "" {
		return "(nothing on stderr)"
	}
	return l
}
