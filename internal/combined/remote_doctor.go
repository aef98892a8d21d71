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
		{"noctalia Pulse", pulse.ClaudeSurface().Check},
		{"Coucou", coucou.Surface().Check},
		{"VPet", vpet.Surface().Check},
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
	var rep remote.Report
	if perr := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &rep); perr != nil || rep.Wire == 0 {
		return []install.Finding{ok, {Status: install.Fail,
			What: fmt.Sprintf("%s --doctor on %s printed no report: a hookwire without the relay", c.Command, c.Host),
			Fix:  "install this desktop's hookwire release (" + hook.BuildVersion() + ") there"}}
	}
	return append([]install.Finding{ok}, c.read(rep)...)
}

// read turns the relay's report into findings, a fix for each silence.
func (c *remoteDoctor) read(rep remote.Report) []install.Finding {
	var fs []install.Finding
	add := func(status install.Status, what, fix string) {
		fs = append(fs, install.Finding{Status: status, What: what, Fix: fix})
	}
	if rep.Wire != remote.Version {
		add(install.Fail, fmt.Sprintf("the relay speaks wire version %d, this hookwire %d", rep.Wire, remote.Version),
			"install the same hookwire release on both machines (here: "+hook.BuildVersion()+")")
	} else {
		what := fmt.Sprintf("relay: hookwire %s, wire version %d", clip(rep.Version), rep.Wire)
		if rep.Version != hook.BuildVersion() {
			what += fmt.Sprintf(" (this desktop: %s)", hook.BuildVersion())
		}
		add(install.OK, what, "")
	}
	switch {
	case rep.Problem != "":
		add(install.Fail, "relay directory "+clip(rep.RelayDir)+": "+clip(rep.Problem),
			"on "+c.Host+": make it a directory of your own, mode 0700 (or remove it and run `hookwire relay --init`)")
	case !rep.SetUp:
		add(install.Warn, "no relay directory there yet ("+clip(rep.RelayDir)+"): its hooks hand nothing over until one exists",
			"connect once (hookwire remote "+c.Host+"), or run `hookwire relay --init` there")
	case rep.Backlog != nil && rep.Backlog.Unacked > 0:
		add(install.Info, fmt.Sprintf("%d deliveries wait in the spool for a desktop", rep.Backlog.Unacked), "")
	}
	if rep.Running {
		add(install.Info, "a desktop is connected to it now", "")
	}
	if rep.SpaceLeft != nil {
		add(install.Fail, fmt.Sprintf("the disk of its relay directory is full (%d KiB left): its hooks cannot spool, and while no desktop is connected their deliveries are lost",
			*rep.SpaceLeft>>10), "on "+c.Host+": free some space on the disk that holds "+clip(rep.RelayDir))
	}
	if f := rep.DiskFull; f != nil {
		add(install.Warn, "the disk of its relay directory was full ("+fullWhen(f)+"): "+fullCost(f),
			"keep some space free on "+c.Host+"'s disk: what a hook could not spool while no desktop was connected is lost")
	}
	var agents []string
	for a, bins := range rep.Hooks {
		agents = append(agents, clip(a)+" ("+clip(strings.Join(bins, ", "))+")")
	}
	sort.Strings(agents)
	if len(agents) == 0 {
		add(install.Fail, "no agent there has the hooks of hookwire, nb-hook, pulse-claude or vpet-notify",
			"on "+c.Host+": hookwire install --agent AGENT, for each agent you use there")
	} else {
		add(install.OK, "hooks installed for: "+strings.Join(agents, ", "), "")
	}
	return fs
}

// fullWhen says when the relay's disk was full, in this desktop's time zone.
func fullWhen(f *remote.Full) string {
	const layout = "2006-01-02 15:04:05"
	first, last := f.First.Local().Format(layout), f.Last.Local().Format(layout)
	if first == last {
		return first
	}
	return first + " to " + last
}

// fullCost says what a full disk did to the relay's deliveries.
func fullCost(f *remote.Full) string {
	var what []string
	if f.AcksLate > 0 {
		what = append(what, fmt.Sprintf("%d acks persisted late, once there was space", f.AcksLate))
	}
	if f.Live > 0 {
		what = append(what, fmt.Sprintf("%d deliveries handed to the connected desktop unspooled", f.Live))
	}
	if len(what) == 0 {
		return "nothing was lost"
	}
	return strings.Join(what, "; ")
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
