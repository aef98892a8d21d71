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

// relayCommand is the command, with the specs whose hooks --doctor looks
// for: hookwire's and each crossing surface's own binary's.
func relayCommand(surfaces []surface) hook.Command {
	var names []string
	var all []install.Spec
	for _, s := range surfaces {
		names, all = append(names, s.bin.Name), append(all, s.spec)
	}
	specs := []install.Spec{install.Union("hookwire", []string{"--surfaces", strings.Join(names, ",")}, all...)}
	for _, s := range surfaces {
		if slices.Contains([]string{"nb-hook", "pulse-claude", "vpet-notify"}, s.bin.Name) {
			specs = append(specs, s.spec)
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

// relayReport is --doctor's JSON: what hookwire remote doctor checks.
type relayReport struct {
	Version  string `json:"version"`
	Wire     int    `json:"wire"`
	RelayDir string `json:"relay_dir"`
	// SetUp: the directory exists, so the hooks here hand over.
	SetUp   bool   `json:"set_up"`
	Problem string `json:"problem,omitempty"`
	// Running: a relay listens now (a desktop is connected).
	Running bool            `json:"running"`
	Backlog *remote.Backlog `json:"backlog,omitempty"`
	// Hooks: each agent whose settings here run hookwire's hooks, or a
	// crossing surface's own binary's, and which.
	Hooks map[string][]string `json:"hooks"`
}

func (c *relayCmd) doctor(con *hook.Console, dir string) error {
	r := relayReport{Version: hook.BuildVersion(), Wire: remote.Version, RelayDir: dir, Hooks: map[string][]string{}}
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
