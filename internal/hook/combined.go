package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
)

// Combined is one process serving several surfaces for one event: the
// agent spawns it once where it would spawn one binary per surface. It reads
// stdin once and parses the event once; each surface's handler runs in it,
// concurrently, as that binary would (its own debug log line, its own
// state), under the one deadline.
//
// The surfaces are chosen by --surfaces NAME,NAME,… (install writes it). At
// most one reply reaches stdout: a reply that decides something (anything
// but the neutral {}) wins over a neutral one, and between two of a kind the
// surface named first wins; the others are noted in the debug log. A dry run
// prints every surface's output, in order.
type Combined struct {
	Name, Help string
	// Surfaces are every binary it can serve.
	Surfaces []Binary
	// Default are the surfaces served when --surfaces names none.
	Default []string
	// Commands are its commands for a person (install, doctor, …), for
	// the surfaces chosen.
	Commands func(surfaces []string) []Command
	// Hooks reports whether a surface is installed on an agent's event
	// (its own name, as the agent sends it): the combined hook runs on the
	// union of the surfaces' events, and each surface sees only its own.
	Hooks func(surface, agentName, event string) bool
}

// envSurface names, in a finisher that a combined process started, the one
// surface it finishes for.
const envSurface = "HOOKWIRE_SURFACE"

// MainCombined runs a combined process with the process's arguments and
// exits.
func MainCombined(c Combined) {
	os.Exit(RunCombined(c, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// RunCombined runs it and returns its exit status.
func RunCombined(c Combined, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	names, rest := surfacesFlag(args)
	if len(names) == 0 {
		names = c.Default
	}
	if only, ok := os.LookupEnv(envSurface); ok {
		// A finisher, for one surface: that binary's own run.
		os.Unsetenv(envSurface)
		for _, b := range c.Surfaces {
			if b.Name == only {
				return Run(b, rest, stdin, stdout, stderr)
			}
		}
		return 0
	}
	if len(rest) > 0 && rest[0] == "wrap" {
		// Each surface would run the command: wrap is a surface binary's.
		fmt.Fprintf(stderr, "%s: wrap runs one command for one surface: use that surface's binary (nb-hook wrap -- CMD)\n", c.Name)
		return 2
	}
	self := Binary{Name: c.Name, Help: c.Help, CLI: &combinedCLI{}}
	if c.Commands != nil {
		self.Commands = c.Commands(names)
	}
	if helpWanted(rest) || slices.ContainsFunc(self.Commands, func(cmd Command) bool { return slices.Contains(rest, cmd.Name) }) ||
		slices.Contains(rest, "--version") {
		return Run(self, rest, stdin, stdout, stderr)
	}
	inv := newInvocation(&self, stdin, stdout, stderr)
	defer func() {
		if r := recover(); r != nil {
			inv.fail(outcomePanic, fmt.Errorf("panic: %v", r))
			inv.Notef("%s", stack())
		}
		inv.finish()
	}()
	inv.combine(c, names, rest)
	return 0
}

// combinedCLI is the grammar of the commands for a person; hook mode is
// RunCombined's own.
type combinedCLI struct {
	Agent   string           `help:"The agent, when its payload does not say."`
	Args    []string         `arg:"" optional:"" hidden:""`
	Version kong.VersionFlag `help:"Print the version."`
}

func (*combinedCLI) Run(*Invocation) error { return nil }

// surfacesFlag takes --surfaces LIST (or --surfaces=LIST) out of args.
func surfacesFlag(args []string) (names, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return names, append(rest, args[i:]...)
		case a == "--surfaces" && i+1 < len(args):
			names = append(names, strings.Split(args[i+1], ",")...)
			i++
		case strings.HasPrefix(a, "--surfaces="):
			names = append(names, strings.Split(strings.TrimPrefix(a, "--surfaces="), ",")...)
		default:
			rest = append(rest, a)
		}
	}
	return names, rest
}

// combine runs the chosen surfaces' handlers on this event.
func (inv *Invocation) combine(c Combined, names, args []string) {
	var bins []*Binary
	for _, n := range names {
		i := slices.IndexFunc(c.Surfaces, func(b Binary) bool { return b.Name == strings.TrimSpace(n) })
		if i < 0 {
			if n != "" {
				inv.Notef("--surfaces: %q is not a surface: ignored", n)
			}
			continue
		}
		if !slices.ContainsFunc(bins, func(b *Binary) bool { return b.Name == c.Surfaces[i].Name }) {
			bins = append(bins, &c.Surfaces[i])
		}
	}
	if len(bins) == 0 {
		inv.Skip("no surface to serve (--surfaces)")
		return
	}
	agentFlag, positional := agentArgs(args)
	inv.parseMu.Lock()
	inv.shared = map[string]agent.Event{}
	inv.parseMu.Unlock()
	ev := inv.Payload(agentFlag, positional)
	inv.Observe(ev)
	var subs []*Invocation
	var outs []*lockedBuffer
	var wg sync.WaitGroup
	// Each surface sees only the events it is installed on, when the event
	// is one some surface is installed on (an event none knows, or one named
	// after flags this cannot read, goes to all, as separate binaries would
	// each have been run).
	hooks := func(*Binary) bool { return true }
	if c.Hooks != nil && slices.ContainsFunc(bins, func(b *Binary) bool { return c.Hooks(b.Name, agentName(ev, agentFlag), ev.Name) }) {
		hooks = func(b *Binary) bool { return c.Hooks(b.Name, agentName(ev, agentFlag), ev.Name) }
	}
	for _, b := range bins {
		if !hooks(b) {
			continue // not one of this surface's events
		}
		out := &lockedBuffer{}
		sub := inv.child(b, out)
		subs, outs = append(subs, sub), append(outs, out)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(handedOver); !ok {
						sub.fail(outcomePanic, fmt.Errorf("panic: %v", r))
						sub.Notef("%s", stack())
					}
				}
				sub.finish()
			}()
			sub.run(args)
		}()
	}
	wg.Wait()
	var served []string
	outcome := outcomeNothing
	for _, sub := range subs {
		sub.mu.Lock()
		o := sub.rec.Outcome
		sub.mu.Unlock()
		served = append(served, sub.bin.Name+" "+o)
		if o == outcomeOK && outcome == outcomeNothing || o == outcomeFailed || o == outcomeTimeout || o == outcomePanic {
			outcome = o
		}
	}
	inv.Notef("surfaces: %s", strings.Join(served, ", "))
	switch outcome {
	case outcomeOK:
		inv.mu.Lock()
		inv.rec.Outcome = outcome // the surfaces' lines say what was sent
		inv.mu.Unlock()
	case outcomeNothing:
	default:
		inv.fail(outcome, errors.New("a surface's delivery: see its line"))
	}
	if inv.dryRun {
		for _, o := range outs {
			inv.write(o.Bytes())
		}
		return
	}
	if i := pickReply(outs); i >= 0 {
		for j, o := range outs {
			if j != i && o.Len() > 0 {
				inv.Notef("%s's reply %q set aside for %s's", subs[j].bin.Name, clipReply(o.Bytes()), subs[i].bin.Name)
			}
		}
		inv.write(outs[i].Bytes())
	}
}

// pickReply chooses the reply that goes out: the first that decides
// something, else the first neutral one ({}); -1 for none.
func pickReply(outs []*lockedBuffer) int {
	neutral := -1
	for i, o := range outs {
		b := bytes.TrimSpace(o.Bytes())
		switch {
		case len(b) == 0:
		case string(b) == "{}":
			if neutral < 0 {
				neutral = i
			}
		default:
			return i
		}
	}
	return neutral
}

func clipReply(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// agentArgs finds --agent and the positional arguments in a hook's
// arguments, the grammar every surface shares.
func agentArgs(args []string) (agentFlag string, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--agent" && i+1 < len(args):
			agentFlag = args[i+1]
			i++
		case strings.HasPrefix(a, "--agent="):
			agentFlag = strings.TrimPrefix(a, "--agent=")
		case a == "--":
			return agentFlag, append(positional, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			positional = append(positional, a)
		}
	}
	return agentFlag, positional
}

// agentName is the agent as install names it.
func agentName(ev agent.Event, flag string) string {
	if flag != "" {
		return strings.ToLower(flag)
	}
	return string(ev.Agent)
}

// child is an invocation of surface b inside this combined one: the same
// input, parse, deadline and debug log; its stdout is out.
func (inv *Invocation) child(b *Binary, out io.Writer) *Invocation {
	sub := &Invocation{
		bin:     b,
		start:   inv.start,
		stdout:  out,
		stderr:  io.Discard,
		logPath: inv.logPath,
		dryRun:  inv.dryRun,
		ctx:     inv.Context(),
		input:   inv.Stdin(),
		parent:  inv,
	}
	if !sub.dryRun {
		for _, name := range b.DryRunEnv {
			if os.Getenv(name) != "" {
				sub.dryRun = true
			}
		}
	}
	sub.stdinOnce.Do(func() {})
	sub.rec = record{Binary: b.Name, Version: inv.rec.Version, DryRun: sub.dryRun}
	return sub
}

// sharedParse returns the parent's parse of the same arguments, once.
func (inv *Invocation) sharedParse(agentFlag string, args []string, answerWait time.Duration, parse func() agent.Event) agent.Event {
	p := inv.parent
	if p == nil {
		p = inv // the combined process's own parse
	}
	key := fmt.Sprintf("%s\x00%q\x00%d", agentFlag, args, answerWait)
	p.parseMu.Lock()
	defer p.parseMu.Unlock()
	if p.shared == nil {
		return parse() // not a combined process
	}
	if ev, ok := p.shared[key]; ok {
		return ev
	}
	ev := parse()
	p.shared[key] = ev
	return ev
}

// lockedBuffer is a surface's stdout in a combined process.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.b.Bytes())
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}
