// Package combined is the hookwire binary: one hook process serving several
// surfaces (hook.Combined), with the install, uninstall, snippet and doctor
// of the surfaces chosen.
package combined

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/coral"
	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/trailboss"
	"github.com/hookwire/hookwire/internal/vpet"
)

// Hookwire is the hookwire binary: every surface, served from one process.
func Hookwire() hook.Combined {
	// nb-hook first: the one surface whose reply decides (Coucou's approvals).
	surfaces := []install.Surface{coucou.Surface(), pulse.ClaudeSurface(), trailboss.Surface(), vpet.Surface(), coral.Surface()}
	for i := range surfaces {
		surfaces[i].Check = withLate(surfaces[i])
	}
	bins := map[string]func() hook.Binary{"nb-hook": coucou.Relay, "pulse-claude": pulse.Claude,
		"trailboss-hook": trailboss.Hook, "vpet-notify": vpet.Notify, "coral-pulse": coral.Pulse}

	c := hook.Combined{
		Name: "hookwire",
		Help: `Serve several hookwire surfaces from one hook: one process per event instead of one per surface.

--surfaces NAME,NAME,… chooses them (default: all): nb-hook (Coucou), pulse-claude
(noctalia Pulse), trailboss-hook (Trail Boss), vpet-notify (VPet), coral-pulse
(Coral). Each sees exactly the events and environment its own binary would, and
reads its own variables (see each binary's --help). install --surfaces … writes
the hooks for the surfaces chosen, on the events any of them needs.

At most one reply reaches the agent: one that decides (a Coucou approval) wins
over the neutral {}; between two of a kind, the surface named first.

hookwire remote HOST… shows, on this desktop's surfaces, the agents that run on
other machines, over your own ssh (hookwire remote --help, docs/remote.md).

Always exits 0 in hook mode; prints nothing but a reply the agent's protocol needs.`,
	}
	specs := map[string]install.Spec{}
	for _, s := range surfaces {
		c.Surfaces = append(c.Surfaces, bins[s.Name]())
		c.Default = append(c.Default, s.Name)
		specs[s.Name] = s.Spec
	}
	c.Hooks = func(name, agent, event string) bool { return specs[name].Hooks(agent, event) }
	// Not a hook: remote shows other machines' agents on this desktop
	// (remote.go).
	c.Direct = map[string]func([]string, *os.File, io.Writer, io.Writer) int{"remote": Remote}
	c.Commands = func(given []string) []hook.Command { return commands(surfaces, c.Default, given) }
	return c
}

// Main is the hookwire binary.
func Main() {
	os.Exit(hook.RunCombined(Hookwire(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// withLate is s's check, and whether s is late (hook's courier.go): it made
// a courier wait out its budget, and hookwire drops what it would send it
// for a while.
func withLate(s install.Surface) install.Check {
	check := s.Check
	return func(getenv func(string) string) []install.Finding {
		var out []install.Finding
		if check != nil {
			out = check(getenv)
		}
		if since, late := hook.LateSince(getenv, s.Name); late {
			out = append(out, install.Finding{Status: install.Warn,
				What: fmt.Sprintf("%s made a courier wait out its budget at %s (it did not answer hookwire within %v): hookwire drops what it would send it until %s",
					s.Title, since.Format(time.TimeOnly), hook.Budget, since.Add(hook.LateMemory).Format(time.TimeOnly)),
				Fix: "check that " + s.Title + " runs and answers; hookwire sends to it again after that"})
		}
		return out
	}
}

// unionSpec is what hookwire installs for the surfaces named.
func unionSpec(surfaces []install.Surface, names []string) install.Spec {
	var chosen []install.Spec
	for _, n := range names {
		for _, s := range surfaces {
			if s.Name == n {
				chosen = append(chosen, s.Spec)
			}
		}
	}
	spec := install.Union("hookwire", []string{"--surfaces", strings.Join(names, ",")}, chosen...)
	// The surfaces' own binaries' hooks are replaced, not doubled: each
	// event would otherwise reach the surface twice. So are the lines of
	// hookwire-client, which earlier setups wrote (the warm path's client:
	// every hook runs hookwire itself now).
	spec.Legacy = append(spec.Legacy, names...)
	spec.Former, spec.FormerCheck = formerClient, formerCheck
	spec.Env = append(spec.Env, hook.GraceVar) // hookwire's own
	for _, s := range chosen {
		if len(s.Ask) > 0 {
			// install --approvals: the line that waits for a person
			// serves the surface that answers, and those installed on
			// that event anyway (the consent panel, on Copilot CLI's
			// permissionRequest).
			serve := []string{s.Binary}
			for _, o := range chosen {
				if o.Binary != s.Binary && slices.ContainsFunc(s.Ask, func(k agent.Kind) bool { return slices.Contains(o.Kinds, k) }) {
					serve = append(serve, o.Binary)
				}
			}
			spec.AskArgs = []string{"--surfaces", strings.Join(serve, ",")}
		}
	}
	return spec
}

// commands are hookwire's commands for a person, for the surfaces given
// by --surfaces (nil: none given, and install and its kin serve them all;
// doctor is then every pair setup wired).
func commands(surfaces []install.Surface, all, given []string) []hook.Command {
	names := given
	if len(names) == 0 {
		names = all
	}
	var checks []install.Check
	for _, n := range names {
		for _, s := range surfaces {
			if s.Name == n {
				checks = append(checks, s.Doctor)
			}
		}
	}
	cmds := install.Commands(unionSpec(surfaces, names), checks...)
	spec := func(names []string) install.Spec { return unionSpec(surfaces, names) }
	setup, doctor := install.Setup("hookwire", throughRelay(surfaces), spec, given)
	if given == nil {
		for i := range cmds {
			if cmds[i].Name == "doctor" {
				cmds[i] = doctor
			}
		}
	}
	return append(cmds, setup, relayCommand(surfaces))
}
