package hook

import (
	"bytes"
	"context"
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
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
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
	// the surfaces --surfaces chose (nil when it named none).
	Commands func(surfaces []string) []Command
	// Hooks reports whether a surface is installed on an agent's event
	// (its own name, as the agent sends it): the combined hook runs on the
	// union of the surfaces' events, and each surface sees only its own.
	Hooks func(surface, agentName, event string) bool
	// Direct are commands that are no hook at all and have their own
	// grammar (hookwire remote): the first argument names one, the rest are
	// its arguments; it returns the exit status.
	Direct map[string]func(args []string, stdin *os.File, stdout, stderr io.Writer) int
}

// envSurfaces lists, in the finisher of a combined process, the surfaces
// it finishes for: surface:token[:queue], comma-separated. A combined
// process starts one finisher for all the surfaces that hand work over.
const envSurfaces = "HOOKWIRE_SURFACES"

// finisherRequest is a surface's hand-over in a combined process: its
// finisher token, and the queue it drains (later.go), if any.
type finisherRequest struct{ surface, token, queue string }

func (r finisherRequest) String() string {
	s := r.surface + ":" + r.token
	if r.queue != "" {
		s += ":" + r.queue
	}
	return s
}

func parseRequests(v string) []finisherRequest {
	var out []finisherRequest
	for _, f := range strings.Split(v, ",") {
		parts := strings.Split(f, ":")
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			continue
		}
		r := finisherRequest{surface: parts[0], token: parts[1]}
		if len(parts) > 2 {
			r.queue = parts[2]
		}
		out = append(out, r)
	}
	return out
}

// RunCombined runs a combined process (combined.Main gives it the
// process's arguments) and returns its exit status.
func RunCombined(c Combined, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) > 0 && c.Direct[args[0]] != nil {
		return c.Direct[args[0]](args[1:], stdin, stdout, stderr)
	}
	growStack(0)
	given, rest := surfacesFlag(args)
	names := given
	if len(names) == 0 {
		names = c.Default
	}
	if _, ok := os.LookupEnv(envCourier); ok {
		// A courier, for the deliveries a hook handed over (courier.go).
		os.Unsetenv(envCourier)
		return runCourier(c, stdin)
	}
	if list, ok := os.LookupEnv(envSurfaces); ok {
		// The finisher of a combined process, for the surfaces listed.
		os.Unsetenv(envSurfaces)
		return detached(c, stdin, func(inv *Invocation) {
			if inv.finisher != "" {
				inv.runFinishers(c, parseRequests(list), rest)
			}
		})
	}
	if len(rest) > 0 && rest[0] == "wrap" {
		// Each surface would run the command: wrap is a surface binary's.
		fmt.Fprintf(stderr, "%s: wrap runs one command for one surface: use that surface's binary (nb-hook wrap -- CMD)\n", c.Name)
		return 2
	}
	self := Binary{Name: c.Name, Help: c.Help, CLI: &combinedCLI{}, NoWrap: true}
	if c.Commands != nil && (helpWanted(rest) || slices.Contains(rest, "--version") || mayNameCommand(rest)) {
		// Built only when an argument may name one: the commands' specs
		// and setup's plan took a fifth of a millisecond of every event.
		self.Commands = c.Commands(given) // nil: --surfaces named none
	}
	if helpWanted(rest) || slices.ContainsFunc(self.Commands, func(cmd Command) bool { return slices.Contains(rest, cmd.Name) }) ||
		slices.Contains(rest, "--version") {
		return Run(self, rest, stdin, stdout, stderr)
	}
	inv := newInvocation(&self, stdin, stdout, stderr)
	defer func() {
		inv.recovered(recover())
		inv.finish()
	}()
	inv.combine(c, names, rest)
	return 0
}

// detached runs work as a process no agent waits for (a finisher, a
// courier): no output, and a log line only when there is a note.
func detached(c Combined, stdin *os.File, work func(inv *Invocation)) int {
	self := Binary{Name: c.Name}
	inv := newInvocation(&self, stdin, io.Discard, io.Discard)
	inv.quiet = true
	defer func() {
		inv.recovered(recover())
		inv.finish()
	}()
	work(inv)
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

// mayNameCommand reports an argument that may be the name of a command for
// a person (install, doctor, setup …: a lower-case word), where a hook
// line's are flags, an agent's name (--agent's value), a payload.
func mayNameCommand(args []string) bool {
	for i := 0; i < len(args); i++ {
		if args[i] == "--agent" {
			i++
			continue
		}
		if commandWord(args[i]) {
			return true
		}
	}
	return false
}

// commandWord reports a lower-case word, dashes inside it allowed.
func commandWord(a string) bool {
	for i := 0; i < len(a); i++ {
		if (a[i] < 'a' || a[i] > 'z') && (a[i] != '-' || i == 0) {
			return false
		}
	}
	return a != ""
}

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
	bins := inv.chosen(c, names)
	if len(bins) == 0 {
		inv.Skip("no surface to serve (--surfaces)")
		return
	}
	// A script's flags (--session S, --input JSON) take values: read them
	// first, as every surface's run does, so that the event parsed here is
	// the one each surface parses (and shares).
	rest, script := splitScript(args)
	inv.script = script
	agentFlag, positional := agentArgs(rest)
	inv.parseMu.Lock()
	inv.shared = map[string]agent.Event{}
	inv.parseMu.Unlock()
	ev := inv.Payload(agentFlag, positional)
	inv.Observe(ev)
	serve := serving(c, bins, ev)
	subs, outs := inv.serve(serve, args, ev)
	// The agent may be waiting for the reply (an approval): it goes first,
	// before the finishers and the courier are started and the lines
	// written.
	inv.replyOnce(subs, outs)
	inv.oneFinisher(c, subs, args)
	inv.startCourier(c, subs)
	for _, sub := range subs {
		sub.finish() // after the finisher's pid is known
	}
	inv.sumUp(subs)
}

// chosen are the surfaces --surfaces names, each once, in its order.
func (inv *Invocation) chosen(c Combined, names []string) []*Binary {
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
	return bins
}

// serving are the surfaces of bins that serve ev. Each sees only the events
// it is installed on, when the event is one some surface is installed on (an
// event none knows, or one named after flags this cannot read, goes to all,
// as separate binaries would each have been run).
func serving(c Combined, bins []*Binary, ev agent.Event) []*Binary {
	var serve []*Binary
	for _, b := range bins {
		if c.Hooks == nil || c.Hooks(b.Name, string(ev.Agent), ev.Name) {
			serve = append(serve, b)
		}
	}
	if len(serve) == 0 {
		return bins
	}
	return serve
}

// serve runs each surface's handler concurrently, as its own binary would,
// each on its own clock (courier.go: the agent waits at most Grace for the
// deliveries it needs nothing from), and returns their invocations and
// their stdouts once all have returned.
func (inv *Invocation) serve(bins []*Binary, args []string, ev agent.Event) ([]*Invocation, []*lockedBuffer) {
	var subs []*Invocation
	var outs []*lockedBuffer
	for _, b := range bins {
		out := &lockedBuffer{}
		sub := inv.child(b, out)
		if inv.mayHandOver(b, ev, args) {
			sub.late = &transport.Late{}
		}
		subs, outs = append(subs, sub), append(outs, out)
	}
	inv.graceful(subs, ev, func(sub *Invocation) {
		growStack(0)
		defer func() {
			sub.recovered(recover())
			sub.mu.Lock()
			sub.ended = time.Now() // its line is written later, with its own duration
			sub.mu.Unlock()
		}()
		sub.run(args)
	})
	return subs, outs
}

// replyOnce writes the one reply that goes out (every surface's output in a
// dry run), noting those set aside.
func (inv *Invocation) replyOnce(subs []*Invocation, outs []*lockedBuffer) {
	if inv.dryRun {
		for _, o := range outs {
			inv.write(o.Bytes())
		}
		return
	}
	i := pickReply(outs)
	if i < 0 {
		return
	}
	for j, o := range outs {
		if j != i && o.Len() > 0 {
			inv.Notef("%s's reply %q set aside for %s's", subs[j].bin.Name, clipReply(o.Bytes()), subs[i].bin.Name)
		}
	}
	inv.write(outs[i].Bytes())
}

// oneFinisher starts one finisher for the surfaces that handed work over, in
// the surfaces' order, and gives each its pid.
func (inv *Invocation) oneFinisher(c Combined, subs []*Invocation, args []string) {
	inv.mu.Lock()
	requests := inv.requests
	inv.mu.Unlock()
	if len(requests) == 0 {
		return
	}
	order := func(r finisherRequest) int {
		return slices.IndexFunc(subs, func(s *Invocation) bool { return s.bin.Name == r.surface })
	}
	slices.SortFunc(requests, func(a, b finisherRequest) int { return order(a) - order(b) })
	pid := inv.startFinishers(c, requests, args)
	for _, sub := range subs {
		if slices.ContainsFunc(requests, func(r finisherRequest) bool { return r.surface == sub.bin.Name }) {
			sub.mu.Lock()
			sub.rec.FinisherPID = pid
			sub.mu.Unlock()
		}
	}
}

// sumUp records the surfaces' outcomes as the process's: the worst of them,
// a failure of any over a success.
func (inv *Invocation) sumUp(subs []*Invocation) {
	var served []string
	outcome := outcomeNothing
	for _, sub := range subs {
		sub.mu.Lock()
		o := sub.rec.Outcome
		sub.mu.Unlock()
		served = append(served, sub.bin.Name+" "+o)
		if (o == outcomeOK || o == outcomeCourier || o == outcomeSkipped) && outcome == outcomeNothing || o == outcomeFailed || o == outcomeTimeout || o == outcomePanic {
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
	return text.ClipBytes(strings.TrimSpace(string(b)), 80)
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
	p.parseMu.Lock()
	defer p.parseMu.Unlock()
	if p.shared == nil {
		return parse() // not a combined process
	}
	key := fmt.Sprintf("%s\x00%q\x00%d", agentFlag, args, answerWait)
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

// startFinishers starts one finisher for every surface that handed work
// over, and returns its pid; if it cannot, the work is done here.
func (inv *Invocation) startFinishers(c Combined, requests []finisherRequest, args []string) int {
	var list []string
	for _, r := range requests {
		list = append(list, r.String())
	}
	err := ErrNoFinisher
	pid := 0
	if store, serr := state.Open(os.Getenv, inv.bin.Name); serr == nil {
		pid, err = inv.startFinisher("combined", store.Dir(), envSurfaces+"="+strings.Join(list, ","))
	}
	if err != nil {
		inv.Notef("finisher: %v: the surfaces' work is finished here", err)
		inv.runFinishers(c, requests, args)
		return 0
	}
	inv.Notef("one finisher (pid %d) for %s", pid, strings.Join(list, ", "))
	for _, r := range requests {
		if r.queue != "" {
			namePID(inv.Context(), r, pid) // for the log lines of what queues behind it
		}
	}
	return pid
}

// runFinishers does, for each surface, what its own finisher would: drain
// its queue, or run its handler as a finisher (pulse-claude's turn end).
func (inv *Invocation) runFinishers(c Combined, requests []finisherRequest, args []string) {
	inv.parseMu.Lock()
	if inv.shared == nil {
		inv.shared = map[string]agent.Event{}
	}
	inv.parseMu.Unlock()
	var wg sync.WaitGroup
	for _, r := range requests {
		i := slices.IndexFunc(c.Surfaces, func(b Binary) bool { return b.Name == r.surface })
		if i < 0 {
			continue
		}
		sub := inv.child(&c.Surfaces[i], io.Discard)
		sub.finisher, sub.rec.Finisher = r.token, true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				sub.recovered(recover())
				sub.finish()
			}()
			if r.queue != "" {
				sub.drain(r.queue)
			} else {
				sub.run(args)
			}
		}()
	}
	wg.Wait()
}

// namePID writes the finisher's pid into a surface's queue, if it is still
// the finisher's.
func namePID(parent context.Context, r finisherRequest, pid int) {
	store, err := state.Open(os.Getenv, r.surface)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(parent, laterLock)
	defer cancel()
	release, err := store.Lock(ctx, r.queue)
	if err != nil {
		return
	}
	defer release()
	if q := readQueue(store, r.queue); q != nil && q.Token == r.token {
		q.PID = pid
		writeQueue(store, r.queue, q)
	}
}

// recovered records a surface's panic (r from recover) as its outcome; a
// hand-over to a finisher is no panic.
func (inv *Invocation) recovered(r any) {
	if r == nil {
		return
	}
	if _, ok := r.(handedOver); !ok {
		inv.fail(outcomePanic, fmt.Errorf("panic: %v", r))
		inv.Notef("%s", stack())
	}
}
