// Package hook is the runtime every hookwire binary runs inside. It owns the
// contract that makes a hook invisible to its agent (ARCHITECTURE.md, "The
// runtime contract"):
//
//  1. exit status 0 in hook mode, whatever happens: bad flags, bad input,
//     panics, a missing or hanging target;
//  2. stdout reserved for replies the agent's protocol requires and for
//     dry-run output;
//  3. one hard deadline, 3 s from start (1.5 s for a session end), that every
//     delivery honours and that a watchdog enforces;
//  4. stdin read with a size cap, never from a terminal, never waited on
//     forever;
//  5. PULSE_DRYRUN: do everything, send nothing, change nothing on disk,
//     print what would be sent;
//  6. PULSE_LOG: one JSON line per invocation, for the person debugging,
//     credentials redacted.
//
// A binary is a kong grammar whose Run method takes an *Invocation; the
// command lines agents' settings hold are read without kong when the
// grammar is a Quick (quick.go), since building kong's model was a third of
// a hook's work. The commands for a person (install, doctor, …) are the
// exception to 1: a usage error exits 2, a failure 1, a panic 1 with its
// stack on stderr.
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/mattn/go-isatty"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
)

// Version is set at build time:
// -ldflags "-X github.com/hookwire/hookwire/internal/hook.Version=v1.2.3".
var Version = "dev"

// readBuildInfo is debug.ReadBuildInfo, or a test's.
var readBuildInfo = debug.ReadBuildInfo

// BuildVersion is Version, else the module's version that go install …@v1.2.3
// records in the build info; a build from a checkout says (devel): "dev".
func BuildVersion() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := readBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}

// The budgets, from process start to exit.
const (
	// Budget is the ordinary hard deadline.
	Budget = 3 * time.Second
	// SessionEndBudget is Claude Code's budget for SessionEnd hooks.
	SessionEndBudget = 1500 * time.Millisecond
	// reserve is kept back from a budget for writing the log and exiting:
	// deliveries see a deadline this much earlier than the budget.
	reserve = 100 * time.Millisecond
	// watchdogSlack is how long after the delivery deadline the watchdog
	// ends the process if a delivery has not returned.
	watchdogSlack = 50 * time.Millisecond
)

// Environment variables every binary honours.
const (
	EnvDryRun = "PULSE_DRYRUN"
	EnvLog    = "PULSE_LOG"
)

// Binary describes one executable.
type Binary struct {
	Name string
	// Help is the description shown by --help.
	Help string
	// CLI is a pointer to the kong grammar. Its Run(*Invocation) error
	// method handles one hook event.
	CLI any
	// DryRunEnv lists extra variables that also switch dry-run on, for
	// compatibility with the scripts a binary replaces.
	DryRunEnv []string
	// NoAnswers says the binary never shows a turn's answer: parsing a turn
	// end then does not read it from the agent's transcript. Otherwise a
	// turn end whose answer the agent writes after the hook (Copilot CLI) is
	// sent by a finisher (later.go).
	NoAnswers bool
	// Origin returns the variables a hook whose event a finisher sends
	// must pass to it, for what a detached process cannot find itself (the
	// agent's terminal); the finisher's Getenv returns them.
	Origin func(getenv func(string) string) map[string]string
	// Neutral is the reply the agent expects from a hook that decides
	// nothing, printed by a hook whose event a finisher sends; nil or "":
	// none.
	Neutral func(ev agent.Event) string
	// Decides reports whether the binary may answer ev with a decision (an
	// approval) on a hook line with no flag but --agent; nil: it never
	// does.
	Decides func(ev agent.Event) bool
	// Commands are subcommands for a person at a terminal (install,
	// doctor, …): they print, and fail with a non-zero status.
	Commands []Command
	// Wrap is how `wrap` shows a wrapped command on this surface (wrap.go).
	Wrap Wrap
	// NoWrap: the binary has no wrap (hookwire: each surface would run the
	// command), and its --help says none.
	NoWrap bool
}

// A Command is a subcommand for a person: its CLI's Run method takes a
// *Console and its error (or panic) is reported on stderr with exit status
// 1; a usage error exits 2. Flags may come before its name.
type Command struct {
	Name, Help string
	CLI        any
}

// Console is what an interactive command writes to.
type Console struct {
	// In is the process's stdin (hookwire relay's pipe from the desktop).
	In       io.Reader
	Out, Err io.Writer
	// Color says Out is a terminal that takes ANSI colours.
	Color  bool
	Getenv func(string) string
}

// Invocation is one run of a binary: the event's deadline, its input, and
// the way out for everything it sends.
type Invocation struct {
	bin    *Binary
	start  time.Time
	stdout io.Writer
	stderr io.Writer
	stdin  *os.File

	mu       sync.Mutex
	ctx      context.Context
	cancels  []context.CancelFunc
	watchdog *time.Timer
	rec      record
	logPath  string
	dryRun   bool
	// human is true when a person can see stderr (a terminal): argument
	// errors are then explained there, not only in the log.
	human bool

	// out is held while a reply is written, and closed once the watchdog
	// has decided to end the process: a reply is written whole or not at all.
	out       sync.Mutex
	outClosed atomic.Bool

	stdinOnce  sync.Once
	input      Stdin
	finishOnce sync.Once
	// interactive is set for a person's command: no debug log line.
	interactive bool
	// finisher is the token of a finisher process (finisher.go), "" in a hook.
	finisher string
	// late, for a surface the agent does not wait for, is its deliveries,
	// which the courier carries on when they outlast the grace (courier.go).
	late *transport.Late
	// order is the surface's place in its session's deliveries when a
	// courier may carry them (order.go); skipLate: its surface is late, and
	// what it would send is dropped.
	order    *order
	skipLate bool
	// laterQueue is the queue a finisher drains (later.go), "" otherwise.
	laterQueue string
	// replaying marks an invocation that sends a queued event (later.go),
	// and origin is that event's hook.
	replaying bool
	origin    *entry
	// parent is the combined process (combined.go) a surface's invocation
	// runs in, which parses the event once for all (shared, under parseMu).
	parent  *Invocation
	parseMu sync.Mutex
	shared  map[string]agent.Event
	// requests are the surfaces' finisher requests, gathered for one
	// finisher (combined.go).
	requests []finisherRequest
	// ended is when a surface's work in a combined process was done.
	ended time.Time
	// args are the command line's arguments (a finisher replays them).
	args []string
	// quiet: no debug log line unless there is a note (a finisher draining
	// a queue, whose events have lines of their own).
	quiet bool
	// script is the generic lifecycle's flags (lifecycle.go).
	script agent.Script
}

// Main runs the binary with the process's arguments and exits. In hook mode
// the exit status is always 0; a command for a person's is not (Command).
func Main(b Binary) {
	os.Exit(Run(b, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Run runs the binary and returns its exit status.
func Run(b Binary, args []string, stdin *os.File, stdout, stderr io.Writer) (code int) {
	inv := newInvocation(&b, stdin, stdout, stderr)
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(exitRequest); ok { // --help, --version
				code = int(e)
			} else if _, ok := r.(handedOver); ok { // a finisher sends it (later.go)
				code = 0
			} else if inv.interactive {
				// A person waits for the answer: a bug is a failure, said
				// where they look.
				fmt.Fprintf(stderr, "%s: panic: %v (a bug; please report it)\n%s\n", b.Name, r, stack())
				code = 1
			} else {
				inv.fail(outcomePanic, fmt.Errorf("panic: %v", r))
				inv.Notef("%s", stack())
				code = 0
			}
		}
		inv.finish()
	}()
	return inv.run(args)
}

func newInvocation(b *Binary, stdin *os.File, stdout, stderr io.Writer) *Invocation {
	inv := &Invocation{
		bin:     b,
		start:   time.Now(),
		stdout:  stdout,
		stderr:  stderr,
		stdin:   stdin,
		logPath: os.Getenv(EnvLog),
	}
	for _, name := range append([]string{EnvDryRun}, b.DryRunEnv...) {
		if os.Getenv(name) != "" {
			inv.dryRun = true
		}
	}
	if f, ok := stderr.(*os.File); ok {
		inv.human = isatty.IsTerminal(f.Fd())
	}
	inv.rec = record{Binary: b.Name, Version: BuildVersion(), DryRun: inv.dryRun}
	inv.setBudget(inv.asFinisher())
	if name, err := laterName(); err != nil {
		inv.Notef("finisher: %v", err)
	} else if inv.finisher != "" {
		inv.laterQueue = name
	}

	return inv
}

// setBudget (re)arms the deadline at start+budget.
func (inv *Invocation) setBudget(budget time.Duration) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	deadline := inv.start.Add(budget - reserve)
	if inv.ctx != nil {
		if dl, _ := inv.ctx.Deadline(); !deadline.Before(dl) {
			return // budgets only ever shrink
		}
	}
	parent := context.Background()
	if inv.ctx != nil {
		parent = inv.ctx
	}
	ctx, cancel := context.WithDeadline(parent, deadline)
	inv.ctx, inv.cancels = ctx, append(inv.cancels, cancel)
	if inv.parent == nil { // one watchdog per process: a surface's is its parent's
		inv.arm(time.Until(deadline) + watchdogSlack)
	}
}

// arm (re)starts the watchdog: d from now, the process ends.
func (inv *Invocation) arm(d time.Duration) {
	if inv.watchdog != nil {
		inv.watchdog.Stop()
	}
	inv.watchdog = time.AfterFunc(d, func() {
		inv.fail(outcomeTimeout, errors.New("hard deadline reached"))
		inv.exitNow()
	})
}

// AwaitHuman moves the deadline to d from now, for the one wait the
// contract allows to be long: a round-trip in which the target protocol has
// a person decide (Coucou's approval cards). It is the only way a deadline
// grows; the agent's own hook timeout must be longer than d.
func (inv *Invocation) AwaitHuman(d time.Duration) {
	if inv.parent != nil {
		inv.parent.AwaitHuman(d) // the process's watchdog waits too
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	deadline := time.Now().Add(d)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	inv.ctx, inv.cancels = ctx, append(inv.cancels, cancel)
	if inv.parent == nil { // one watchdog per process: the parent's, moved above
		inv.arm(d + watchdogSlack)
	}
}

// exitNow is the last resort: kill what we started, log, exit 0.
//
// There is deliberately no SIGTERM handler: installing one starts a thread,
// a quarter of a millisecond on every invocation. An agent that kills its
// hook has stopped listening to it, and on Linux our children die with us
// (see transport.Command).
func (inv *Invocation) exitNow() {
	// A reply being written is finished first (an agent must never read
	// half a decision), for as long as the reserve lasts: a reader that
	// takes longer is not reading.
	locked := false
	for end := time.Now().Add(replyGrace); !locked && time.Now().Before(end); {
		if locked = inv.out.TryLock(); !locked {
			time.Sleep(time.Millisecond)
		}
	}
	inv.outClosed.Store(true)
	if locked {
		inv.out.Unlock()
	}
	transport.KillAll()
	inv.finish()
	exit(0)
}

// exit ends the process, and replyGrace is how long the watchdog lets a
// reply being written finish: variables so that tests can watch it.
var (
	exit       = os.Exit
	replyGrace = reserve
)

func (inv *Invocation) run(args []string) int {
	inv.args = args
	if inv.laterQueue != "" {
		inv.drain(inv.laterQueue) // the events are the queue's (later.go)
		return 0
	}
	if len(args) > 0 && args[0] == "wrap" {
		return inv.wrap(args[1:]) // its own grammar: wrap.go
	}
	if !inv.otherCommand(firstWord(args)) {
		args, inv.script = splitScript(args)
	}
	interactive := map[string]bool{}
	for _, c := range inv.bin.Commands {
		interactive[c.Name] = true
	}
	// The commands for people are part of the grammar only when an argument
	// names one (or help is asked for): building their model costs a quarter
	// of a millisecond that a hook would pay on every call. Which word is
	// the command is then kong's to say.
	named := slices.ContainsFunc(args, func(a string) bool { return interactive[a] || a == "hook" })
	if h := quick(inv.bin.CLI, args, named); h != nil {
		return inv.handle(h) // what agents' settings hold, without kong (quick.go)
	}
	root, opts := any(inv.bin.CLI), inv.kongOptions(args)
	var console *Console
	if named || helpWanted(args) {
		root, console, opts = inv.personGrammar(opts)
	}
	parser, err := kong.New(root, opts...)
	if err != nil {
		panic(err) // a grammar bug, caught by every test
	}
	person := ""
	if named {
		person, args = commandFirst(parser, args, interactive)
	}
	kctx, code, ok := inv.parseArgs(parser, args, person != "")
	if !ok {
		return code
	}
	if interactive[kctx.Command()] || interactive[firstWord(strings.Fields(kctx.Command()))] {
		return inv.runCommand(kctx, console)
	}
	if err := kctx.Run(inv); err != nil {
		inv.fail(outcomeFailed, err)
	}
	return 0
}

// handle runs a hook event's handler, as kctx.Run does.
func (inv *Invocation) handle(h Handler) int {
	if err := h.Run(inv); err != nil {
		inv.fail(outcomeFailed, err)
	}
	return 0
}

// kongOptions are the options every parse of the binary's grammar takes.
func (inv *Invocation) kongOptions(args []string) []kong.Option {
	opts := []kong.Option{
		kong.Name(inv.bin.Name),
		// The whole description is built only for a person who asks: its
		// generated sections cost a hook a tenth of a millisecond.
		kong.Description(inv.bin.Help),
		kong.Writers(inv.stdout, inv.stderr),
		kong.Exit(func(code int) { panic(exitRequest(code)) }),
		kong.Vars{"version": inv.bin.Name + " " + inv.rec.Version, "dialects": dialectNames()},
		kong.Bind(inv),
	}
	if helpWanted(args) {
		opts = append(opts, kong.Description(helpText(inv.bin)))
	}
	return opts
}

// personGrammar adds the commands for a person to the grammar: the root
// to parse, the console they print to, and the options.
func (inv *Invocation) personGrammar(opts []kong.Option) (any, *Console, []kong.Option) {
	var root any = inv.bin.CLI
	if !hasCommands(inv.bin.CLI) {
		// The binary's grammar becomes the default command.
		root = &struct{}{}
		opts = append(opts, kong.DynamicCommand("hook", "Handle one hook event (the default: what agents run).", "", inv.bin.CLI, `default:"withargs"`))
	}
	for _, c := range inv.bin.Commands {
		opts = append(opts, kong.DynamicCommand(c.Name, c.Help, "", c.CLI))
	}
	// What only the commands for people use (their --agent enum, the
	// console they print to), built only for them.
	console := &Console{In: strings.NewReader(""), Out: inv.stdout, Err: inv.stderr, Getenv: os.Getenv}
	if inv.stdin != nil {
		console.In = inv.stdin
	}
	if f, ok := inv.stdout.(*os.File); ok {
		console.Color = isatty.IsTerminal(f.Fd()) && os.Getenv("NO_COLOR") == ""
	}
	return root, console, append(opts, kong.Vars{"agents": strings.Join(agent.InstallableNames(), ",")}, kong.Bind(console))
}

// parseArgs parses args; on an error, a person's command exits 2, and a
// hook retries with the positional arguments alone. ok is false when there
// is nothing to run, and code is the exit status.
func (inv *Invocation) parseArgs(parser *kong.Kong, args []string, person bool) (kctx *kong.Context, code int, ok bool) {
	kctx, err := parser.Parse(args)
	if err != nil && person {
		// A person typed it: say what is wrong, the usual way.
		inv.interactive = true
		fmt.Fprintf(inv.stderr, "%s: %v\n", inv.bin.Name, err)
		return nil, 2, false
	}
	if err != nil {
		// A mistyped settings line must not fail the agent's hook, and
		// should still deliver the event it meant: drop the flags and try
		// with the positional arguments alone.
		inv.noteArgs(err)
		kctx, err = parser.Parse(positional(args))
		if err != nil {
			inv.fail(outcomeArgs, err)
			return nil, 0, false
		}
	}
	return kctx, 0, true
}

// runCommand runs a command for a person, who waits for it: no hook
// deadline, no watchdog.
func (inv *Invocation) runCommand(kctx *kong.Context, console *Console) int {
	inv.interactive = true
	inv.mu.Lock()
	inv.watchdog.Stop()
	inv.mu.Unlock()
	if err := kctx.Run(console); err != nil {
		fmt.Fprintf(inv.stderr, "%s: %v\n", inv.bin.Name, err)
		return 1
	}
	return 0
}

// helpWanted reports a request for help, which lists every command.
func helpWanted(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

// hasCommands reports whether a grammar is a tree of commands.
func hasCommands(cli any) bool {
	t := reflect.TypeOf(cli)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		if _, ok := t.Field(i).Tag.Lookup("cmd"); ok {
			return true
		}
	}
	return false
}

// firstWord is the first argument that is not a flag.
func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// commandFirst asks kong which argument, if any, is the command word of one
// of commands, and returns its name and args with that word moved to the
// front. Flags given before a command word (nb-hook --agent claude install)
// are the command's own: kong reads them as the default hook command's and
// refuses them, rightly, since the two flags may differ in meaning.
func commandFirst(parser *kong.Kong, args []string, commands map[string]bool) (string, []string) {
	trace, _ := kong.Trace(parser, args)
	if trace == nil {
		return "", args
	}
	for _, p := range trace.Path {
		if p.Command != nil && commands[p.Command.Name] {
			return p.Command.Name, args // kong found it where it belongs
		}
	}
	if trace.Error == nil || len(trace.Path) == 0 {
		return "", args
	}
	// The trace stopped at a command word after flags it took for the
	// default command's: what remained starts with the word.
	rest := trace.Path[len(trace.Path)-1].Remainder()
	i := len(args) - len(rest)
	if len(rest) == 0 || i < 0 || args[i] != rest[0] || !commands[rest[0]] {
		return "", args
	}
	moved := append([]string{args[i]}, args[:i]...)
	return args[i], append(moved, args[i+1:]...)
}

// noteArgs records an argument error where a person will look.
func (inv *Invocation) noteArgs(err error) {
	inv.Notef("arguments: %v (run %s --help)", err, inv.bin.Name)
	if inv.human {
		fmt.Fprintf(inv.stderr, "%s: %v (see --help)\n", inv.bin.Name, err)
	}
}

// positional drops every flag, keeping "-" (stdin), negative numbers, and
// whatever follows "--". The result starts with "--" so that kong reads all of
// it as positional arguments.
func positional(args []string) []string {
	out := []string{"--"}
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if a == "-" || !strings.HasPrefix(a, "-") || len(a) > 1 && '0' <= a[1] && a[1] <= '9' {
			out = append(out, a)
		}
	}
	return out
}

// exitRequest is how kong's Exit (after --help or --version) unwinds to Run.
type exitRequest int

// Context carries the deadline every delivery must honour.
func (inv *Invocation) Context() context.Context {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.ctx
}

// DryRun reports whether deliveries are printed instead of sent.
func (inv *Invocation) DryRun() bool { return inv.dryRun }

// Getenv reads the environment: the hook's, for an event a finisher sends
// (Binary.Origin).
func (inv *Invocation) Getenv(key string) string {
	if inv.origin != nil {
		if v, ok := inv.origin.Env[key]; ok {
			return v
		}
	}
	return os.Getenv(key)
}

// ParentPID is the process that ran the hook (the agent, or its shell),
// also when a finisher sends the hook's event.
func (inv *Invocation) ParentPID() int {
	if inv.origin != nil && inv.origin.PPID > 0 {
		return inv.origin.PPID
	}
	_, ppid := agent.HookProcess()
	return ppid
}

// Stdin returns what the agent wrote on stdin, read on first use.
func (inv *Invocation) Stdin() Stdin {
	inv.stdinOnce.Do(func() {
		var note string
		inv.input, note = readStdin(inv.stdin)
		if note != "" {
			inv.Notef("%s", note)
		}
	})
	return inv.input
}

// Event reads stdin and returns the canonical event, observed for the log
// and the deadline. agentFlag is --agent; args are the positional arguments.
func (inv *Invocation) Event(agentFlag string, args []string) agent.Event {
	ev := inv.Payload(agentFlag, args)
	if !inv.bin.NoAnswers {
		// A turn end whose answer is still to be written: a finisher sends
		// it, or it waits here; a later event may queue behind it.
		inv.Observe(ev)
		ev = inv.later(ev, agentFlag, args)
	}
	for _, note := range ev.Notes {
		inv.Notef("%s", note)
	}
	if ev.Kind == agent.Unknown {
		if ev.Name == "" {
			inv.Notef("no event name in the payload or the arguments")
		} else {
			inv.Notef("event %q is not one this suite maps (agent %s)", ev.Name, ev.Agent)
		}
	}
	inv.Observe(ev)
	return ev
}

// Payload reads stdin and parses it as Event does, without observing the
// event: for binaries whose event comes from elsewhere (pulse-emit's argument).
func (inv *Invocation) Payload(agentFlag string, args []string) agent.Event {
	return inv.parse(agentFlag, args, 0)
}

// parse is Payload, with a turn end waiting up to answerWait for its answer.
func (inv *Invocation) parse(agentFlag string, args []string, answerWait time.Duration) agent.Event {
	in := inv.Stdin()
	ev := inv.sharedParse(agentFlag, args, answerWait, func() agent.Event {
		return agent.Parse(agent.Input{
			Agent:     agentFlag,
			Payload:   in.Data,
			Truncated: in.Truncated,
			Args:      args,
			Getenv:    os.Getenv,
			Getwd:     os.Getwd,
			// In a combined process one parse serves every surface: the
			// answer is read for those that show it.
			Transcripts: !inv.bin.NoAnswers || inv.parent != nil,
			AnswerWait:  answerWait,
			Script:      inv.script,
			Terminal:    controllingTerminal,
		})
	})
	if recordPayload != nil {
		recordPayload(ev)
	}
	if len(in.Data) > 0 && ev.Raw == nil && !jsonArg(args) {
		inv.Notef("stdin: %d bytes that are not a JSON object: ignored", len(in.Data))
	}
	return ev
}

func jsonArg(args []string) bool {
	return len(args) > 0 && strings.HasPrefix(strings.TrimSpace(args[len(args)-1]), "{")
}

// Observe records the event in the log and, for a session end, shrinks the
// deadline to the session-end budget.
func (inv *Invocation) Observe(ev agent.Event) {
	inv.mu.Lock()
	inv.rec.Agent, inv.rec.Event, inv.rec.Kind, inv.rec.Session =
		string(ev.Agent), ev.Name, string(ev.Kind), ev.Session
	inv.mu.Unlock()
	if ev.Kind == agent.SessionEnd {
		inv.setBudget(SessionEndBudget)
	}
}

// Send delivers r before the deadline, or prints it in a dry run; a request
// whose surface is on a desktop goes to the relay (handover.go). The error
// is for the caller's decisions (spool it? print a decision?); it is already
// in the log.
func (inv *Invocation) Send(r transport.Request) (transport.Reply, error) {
	if c, dir, ok := inv.crossing(r); ok {
		return inv.toRelay(dir, c) // its surface is on the desktop (handover.go)
	}
	if inv.dryRun {
		inv.write([]byte(r.Describe() + "\n"))
		inv.mu.Lock()
		inv.rec.Sent = append(inv.rec.Sent, delivery{To: r.Summary()})
		inv.mu.Unlock()
		return transport.Reply{}, nil
	}
	ctx := inv.Context()
	if inv.late != nil {
		// A delivery the agent does not wait for: handed over to the
		// courier if it outlasts the grace (courier.go).
		c, end := inv.late.Begin(ctx)
		defer end()
		ctx = c
	}
	reply, err := r.Do(ctx)
	// The reply is kept longer than it is logged: redaction (appendLog)
	// must see a credential whole before the log clips it.
	d := delivery{To: r.Summary(), Status: reply.Status, Reply: text.ClipBytes(string(reply.Body), 1024)}
	switch {
	case errors.Is(err, transport.ErrHandedOver) && inv.skipLate:
		d.Dropped = true // its surface is late (courier.go)
	case errors.Is(err, transport.ErrHandedOver):
		d.Courier = true
	case err != nil:
		d.Error = err.Error()
	}
	inv.mu.Lock()
	inv.rec.Sent = append(inv.rec.Sent, d)
	inv.mu.Unlock()
	return reply, err
}

// Reply writes a reply that the agent's protocol requires on stdout.
func (inv *Invocation) Reply(b []byte) { inv.write(b) }

func (inv *Invocation) write(b []byte) {
	// A reader that went away must cost us an error, not a SIGPIPE death.
	signal.Ignore(syscall.SIGPIPE)
	inv.out.Lock()
	defer inv.out.Unlock()
	if !inv.outClosed.Load() {
		_, _ = inv.stdout.Write(b)
	}
}

// Notef adds a line to the debug log: what was odd about this invocation, in
// words a person debugging a silent hook can act on.
func (inv *Invocation) Notef(format string, args ...any) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if len(inv.rec.Notes) < 20 {
		inv.rec.Notes = append(inv.rec.Notes, text.ClipBytes(fmt.Sprintf(format, args...), 2000))
	}
}

// Skip records why nothing was sent.
func (inv *Invocation) Skip(format string, args ...any) {
	inv.Notef(format, args...)
}

// fail records the first failure.
func (inv *Invocation) fail(outcome string, err error) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.rec.Outcome == "" {
		inv.rec.Outcome = outcome
		inv.rec.Error = err.Error()
	}
}

// finish writes the log line, once, whichever way the process ends.
func (inv *Invocation) finish() {
	inv.finishOnce.Do(func() {
		inv.mu.Lock()
		defer inv.mu.Unlock()
		if inv.watchdog != nil {
			inv.watchdog.Stop()
		}
		for _, cancel := range inv.cancels {
			cancel()
		}
		r := &inv.rec
		if r.Outcome == "" {
			r.Outcome = outcomeNothing
			if r.FinisherPID != 0 {
				r.Outcome = outcomeLater
			}
			for _, d := range r.Sent {
				if r.Outcome != outcomeCourier {
					r.Outcome = outcomeOK
				}
				if d.Courier {
					r.Outcome = outcomeCourier
				}
				if d.Dropped && r.Outcome == outcomeOK {
					r.Outcome = outcomeSkipped
				}
				if d.Error != "" {
					r.Outcome, r.Error = outcomeFailed, d.Error
					break
				}
			}
			if inv.dryRun && len(r.Sent) > 0 {
				r.Outcome = outcomeDryRun
			}
		}
		r.Time = inv.start.UTC().Format(time.RFC3339Nano)
		r.Duration = ms(time.Since(inv.start))
		if !inv.ended.IsZero() {
			r.Duration = ms(inv.ended.Sub(inv.start))
		}
		if inv.logPath != "" && !inv.interactive && !(inv.quiet && len(r.Notes) == 0) {
			// The watchdog is stopped: the log has one of its own, so that a
			// log that blocks (a file on a hung network mount) cannot keep
			// the agent waiting past the deadline.
			guard := time.AfterFunc(inv.logBudget(), func() { exit(0) })
			appendLog(inv.logPath, r)
			guard.Stop()
		}
	})
}

// logBudget is how long the log may take: until the hard deadline (the
// watchdog's), and at least logGrace, even when that has passed (the
// watchdog is writing its own line). It guards against a write that hangs,
// not a slow one: the agent's own timeout is seconds past our deadline,
// and a first log line compiles the redaction's expressions.
func (inv *Invocation) logBudget() time.Duration {
	d := logGrace
	if inv.ctx != nil {
		if deadline, ok := inv.ctx.Deadline(); ok {
			d = max(d, time.Until(deadline)+watchdogSlack)
		}
	}
	return d
}

const logGrace = 500 * time.Millisecond

// stack returns the panicking goroutine's stack, trimmed to what matters.
func stack() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	if len(lines) > 24 {
		lines = lines[:24]
	}
	return strings.Join(lines, "\n")
}
