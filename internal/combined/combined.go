// Package combined is the hookwire binary: one hook process serving several
// surfaces (hook.Combined), with the install, uninstall, snippet and doctor
// of the surfaces chosen.
package combined

import (
	"io"
	"os"
	"strings"

	"github.com/hookwire/hookwire/internal/coral"
	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/trailboss"
	"github.com/hookwire/hookwire/internal/vpet"
)

type surface struct {
	bin   hook.Binary
	spec  install.Spec
	check install.Check
}

// Hookwire is the hookwire binary: every surface, served from one process.
func Hookwire() hook.Combined {
	var surfaces []surface
	add := func(b hook.Binary, spec install.Spec, check install.Check) {
		surfaces = append(surfaces, surface{b, spec, check})
	}
	// nb-hook first: the one surface whose reply decides (Coucou's approvals).
	spec, check := coucou.Surface()
	add(coucou.Relay(), spec, check)
	spec, check = pulse.ClaudeSurface()
	add(pulse.Claude(), spec, check)
	spec, check = trailboss.Surface()
	add(trailboss.Hook(), spec, check)
	spec, check = vpet.Surface()
	add(vpet.Notify(), spec, check)
	spec, check = coral.Surface()
	add(coral.Pulse(), spec, check)

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
		c.Surfaces = append(c.Surfaces, s.bin)
		c.Default = append(c.Default, s.bin.Name)
		specs[s.bin.Name] = s.spec
	}
	c.Hooks = func(name, agent, event string) bool { return specs[name].Hooks(agent, event) }
	// Not a hook: shows other machines' agents on this desktop (remote.go).
	c.Direct = map[string]func([]string, *os.File, io.Writer, io.Writer) int{"remote": Remote}
	c.Commands = func(names []string) []hook.Command {
		var chosen []install.Spec
		var checks []install.Check
		for _, n := range names {
			for _, s := range surfaces {
				if s.bin.Name == n {
					chosen, checks = append(chosen, s.spec), append(checks, s.check)
				}
			}
		}
		spec := install.Union("hookwire", []string{"--surfaces", strings.Join(names, ",")}, chosen...)
		// The surfaces' own binaries' hooks are replaced, not doubled: each
		// event would otherwise reach the surface twice.
		spec.Legacy = append(spec.Legacy, names...)
		return append(install.Commands(spec, checks...), relayCommand(surfaces))
	}
	return c
}
