package combined

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/remote"
)

// relayCmd is `hookwire relay`: the agent's machine's end of `hookwire
// remote`, which a desktop runs over ssh (internal/remote).
type relayCmd struct {
	Init   bool `help:"Create the relay directory and exit: the hooks on this machine then spool for a desktop (for provisioning scripts)."`
	Doctor bool `help:"Print a JSON report for hookwire remote doctor: versions, the relay directory, the spool's backlog, the agents whose hooks are installed here."`
	specs  []install.Spec
}

// crossing are the surfaces that live on a desktop: on an agent's machine
// with a relay, their hooks hand their deliveries to it (hook/handover.go).
var crossing = []string{"nb-hook", "pulse-claude", "vpet-notify"}

// throughRelay gives setup and doctor the surfaces as seen from this
// machine: a crossing surface absent here is found, and checked, through a
// relay set up here, since its hooks reach it on the desktop that runs
// hookwire remote. Without this, setup on a dev box would wire none of
// them, and doctor would call each one silent.
func throughRelay(surfaces []install.Surface) []install.Surface {
	out := slices.Clone(surfaces)
	for i, s := range out {
		if !slices.Contains(crossing, s.Name) {
			continue
		}
		find, check := s.Find, s.Check
		out[i].Find = func(getenv func(string) string) install.Presence {
			p := find(getenv)
			if dir, ok := relayed(getenv, p); ok {
				return install.Presence{Found: true, Why: "through the relay " + dir + ", on the desktop that runs hookwire remote"}
			}
			return p
		}
		if check == nil {
			continue
		}
		out[i].Check = func(getenv func(string) string) []install.Finding {
			if dir, ok := relayed(getenv, find(getenv)); ok {
				return []install.Finding{{Status: install.Info, What: "not on this machine: its hooks hand their deliveries to the relay " + dir,
					Fix: "on the desktop, hookwire remote doctor HOST checks the rest of the way"}}
			}
			return check(getenv)
		}
	}
	return out
}

// relayed says whether a surface not present here (p) is reached through
// the relay set up here, and where that is.
func relayed(getenv func(string) string, p install.Presence) (string, bool) {
	if p.Found {
		return "", false
	}
	dir := remote.Dir(getenv)
	ok, _ := remote.SetUp(dir)
	return dir, ok
}

// relayCommand is the command, with the specs whose hooks --doctor looks
// for: hookwire's and each crossing surface's own binary's.
func relayCommand(surfaces []install.Surface) hook.Command {
	var names []string
	var all []install.Spec
	for _, s := range surfaces {
		names, all = append(names, s.Name), append(all, s.Spec)
	}
	spec := install.Union("hookwire", []string{"--surfaces", strings.Join(names, ",")}, all...)
	spec.Former = formerClient
	specs := []install.Spec{spec}
	for _, s := range surfaces {
		if slices.Contains(crossing, s.Name) {
			specs = append(specs, s.Spec)
		}
	}
	return hook.Command{Name: "relay", CLI: &relayCmd{specs: specs},
		Help: "Run on an agent's machine by hookwire remote on the desktop (over ssh): stream this machine's Pulse, Coucou and VPet deliveries on stdout, read acks and answers on stdin."}
}

func (c *relayCmd) Run(con *hook.Console) error {
	dir := remote.Dir(con.Getenv)
	switch {
	case c.Doctor:
		return c.doctor(con, dir)
	case c.Init:
		if err := remote.Create(dir); err != nil {
			return err
		}
		fmt.Fprintf(con.Err, "relay directory %s: the hooks here hand the desktop's surfaces' deliveries to it\n", dir)
		return nil
	}
	// A signal (the desktop's ssh hanging up, a person's ^C) ends it as EOF
	// does: the socket unlinked.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A desktop gone while a line is written is an error to return (the
	// socket unlinked on the way out), not a SIGPIPE death.
	signal.Ignore(syscall.SIGPIPE)
	host, _ := os.Hostname()
	return remote.Relay{Dir: dir, In: con.In, Out: con.Out, Err: con.Err, Version: hook.BuildVersion(), Host: host}.Run(ctx)
}

func (c *relayCmd) doctor(con *hook.Console, dir string) error {
	r := remote.Report{Version: hook.BuildVersion(), Wire: remote.Version, RelayDir: dir, Hooks: map[string][]string{}}
	ok, err := remote.SetUp(dir)
	r.SetUp = ok
	if err != nil {
		r.Problem = err.Error()
	}
	if ok {
		r.Running = remote.Poke(dir) == nil
		if b, err := remote.ReadBacklog(dir); err != nil {
			r.Problem = "spool: " + err.Error()
		} else {
			r.Backlog = &b
		}
		r.DiskFull, _ = remote.ReadFull(dir)
		if left, ok := remote.FreeBytes(dir); ok && left < remote.LowSpace {
			r.SpaceLeft = &left
		}
	}
	for _, s := range c.specs {
		for _, a := range install.Hooked(s, con.Getenv) {
			r.Hooks[a] = append(r.Hooks[a], s.Binary)
		}
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(con.Out, "%s\n", out)
	return err
}
