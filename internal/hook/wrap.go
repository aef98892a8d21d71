package hook

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// Wrap says how `wrap` shows a command's run on a binary's surface. The run
// is an agent's turn: session start, the command line (or --name) as the
// prompt, then turn end (exit 0), error (`exit 3 after 2m14s`, a signal) or
// interrupted (SIGINT).
type Wrap struct {
	// AsTool also announces the command line as a shell tool call after the
	// prompt, for a surface whose status line is the running tool (Coral:
	// "Running make").
	AsTool bool
	// EndsSession sends session_end after the result. A surface that would
	// lose the result with it (a queue the pane should stay in, a status
	// line, a pill showing "done") leaves it out.
	EndsSession bool
}

// wrapCLI is `<binary> wrap`: its own grammar, parsed only when the first
// argument is "wrap", so that it costs a hook nothing.
type wrapCLI struct {
	Session string   `placeholder:"ID" help:"The session (default: $HOOKWIRE_SESSION, else the CI job, else the terminal pane, else one per run)."`
	Name    string   `placeholder:"TEXT" help:"What the run is called on the surface (default: the command line)."`
	Relay   bool     `hidden:"" help:"Deliver the events read on stdin, one JSON array of arguments a line (wrap's own helper)."`
	Command []string `arg:"" optional:"" passthrough:"" help:"The command and its arguments, after --."`
}

// Elapsed measures a wrapped run. Tests replace it to get stable text.
var Elapsed = time.Since

// maxShown bounds the command line and the name passed on to the surface.
const maxShown = 4096

// relayBudget bounds one delivery the relay runs, past the runtime's own
// deadline, in case that one fails.
const relayBudget = Budget + 2*time.Second

// wrap runs `<binary> wrap …`. It returns the child's exit status; a child
// killed by a signal is reported as the shell does, by dying of the same
// signal where that can be done cleanly, else 128+N.
func (inv *Invocation) wrap(args []string) (code int) {
	inv.interactive = true
	inv.mu.Lock()
	inv.watchdog.Stop() // the command may run for hours
	inv.mu.Unlock()

	c, ok := parseWrap(args)
	if !ok {
		// Help, or a mistake: kong's words for it.
		return inv.wrapUsage(args)
	}
	if c.Relay {
		background()
		relay(os.Stdin)
		return 0
	}
	if len(c.Command) == 0 {
		fmt.Fprintf(inv.stderr, "%s wrap: no command (usage: %s wrap [--session ID] [--name TEXT] -- CMD ARGS…)\n", inv.bin.Name, inv.bin.Name)
		return 2
	}
	path, code := inv.lookPath(c.Command[0])
	if code != 0 {
		return code
	}
	cmd := &exec.Cmd{Path: path, Args: c.Command, Stdout: inv.stdout, Stderr: inv.stderr}
	if inv.stdin != nil {
		cmd.Stdin = inv.stdin
	}
	// The child's streams are our own file descriptors, passed as they
	// are: no copying, so the bytes are the command's and a terminal stays
	// a terminal. Signals are caught before the child starts, so that none
	// sent in between ends us instead of reaching it.
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, forwarded...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		signal.Stop(signals)
		fmt.Fprintf(inv.stderr, "%s wrap: %s: %v\n", inv.bin.Name, c.Command[0], cause(err))
		return 126
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		// Whatever goes wrong in here, the status is still the command's.
		if r := recover(); r != nil {
			<-exited
			code, _ = exitStatus(cmd.ProcessState)
		}
	}()
	// Only now, beside the running child, the surface hears of it.
	run := inv.newWrapRun(c, cmd.Process.Pid)
	relayed := inv.announce(run)
	forwardUntil(cmd.Process, signals, exited)
	return inv.wrapEnd(run, <-relayed, cmd.ProcessState, start)
}

// forwardUntil forwards the signals caught to the child until it exits.
func forwardUntil(p *os.Process, signals chan os.Signal, exited <-chan struct{}) {
	defer signal.Stop(signals)
	for {
		select {
		case s := <-signals:
			forward(p, s)
		case <-exited:
			return
		}
	}
}

// lookPath finds the command as a shell does; a status other than 0 is
// the shell's for one it cannot run: 127 not found, 126 not runnable.
func (inv *Invocation) lookPath(name string) (string, int) {
	path, err := exec.LookPath(name)
	if err == nil {
		return path, 0
	}
	fmt.Fprintf(inv.stderr, "%s wrap: %s: %v\n", inv.bin.Name, name, cause(err))
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return "", 127
	}
	return "", 126
}

// wrapRun is what the events of one wrapped run say about it.
type wrapRun struct {
	session, cwd string
	// line is the command line, name what the run is called.
	line, name string
}

// newWrapRun names a wrapped run. Surfaces show a line or two of it; the
// events' own argv must stay far below the system's limit, whatever the
// command line's length.
func (inv *Invocation) newWrapRun(c wrapCLI, pid int) wrapRun {
	run := wrapRun{line: text.ClipBytes(quoteArgs(c.Command), maxShown)}
	run.name = text.ClipBytes(strings.TrimSpace(c.Name), maxShown)
	if run.name == "" {
		run.name = run.line
	}
	run.session = agent.ScriptSession(c.Session, os.Getenv, controllingTerminal)
	if run.session == "" {
		run.session = "wrap." + strconv.Itoa(pid)
	}
	run.cwd, _ = os.Getwd()
	return run
}

// ev is the arguments of one of the run's events.
func (run wrapRun) ev(kind agent.Kind, flags ...string) []string {
	return append([]string{string(kind), "--session", run.session, "--cwd", run.cwd}, flags...)
}

// announce starts the relay and sends the run's start, beside the child,
// not in front of our wait for it.
func (inv *Invocation) announce(run wrapRun) <-chan *relayer {
	relayed := make(chan *relayer, 1)
	go func() {
		defer func() {
			if recover() != nil {
				relayed <- &relayer{restarted: true} // no surface, the same status
			}
		}()
		r := startRelay()
		r.send(run.ev(agent.SessionStart))
		r.send(run.ev(agent.Prompt, "--message", run.name))
		if inv.bin.Wrap.AsTool {
			input, _ := json.Marshal(map[string]string{"command": run.line})
			r.send(run.ev(agent.ToolStart, "--tool", agent.Bash, "--input", string(input)))
		}
		relayed <- r
	}()
	return relayed
}

// wrapEnd sends how the run ended and returns its status, or dies of the
// signal that ended it.
func (inv *Invocation) wrapEnd(run wrapRun, r *relayer, ps *os.ProcessState, start time.Time) int {
	status, sig := exitStatus(ps)
	kind, message := outcome(status, sig, interrupt, Elapsed(start))
	r.send(run.ev(kind, "--message", message))
	if inv.bin.Wrap.EndsSession {
		r.send(run.ev(agent.SessionEnd))
	}
	r.close() // the relay goes on alone: our status does not wait for a surface
	if sig != nil {
		dieOf(sig)
	}
	return status
}

// parseWrap reads wrap's arguments by hand: kong's model of them costs
// 0.2 ms, and it would be paid before the command starts. ok is false for a
// request for help or an argument it does not know, which wrapUsage
// explains.
func parseWrap(args []string) (c wrapCLI, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, inline := strings.Cut(a, "=")
		var dst *string
		switch {
		case a == "--":
			c.Command = args[i+1:]
			return c, true
		case a == "--relay":
			c.Relay = true
			continue
		case name == "--session":
			dst = &c.Session
		case name == "--name":
			dst = &c.Name
		case strings.HasPrefix(a, "-"):
			return c, false
		default:
			c.Command = args[i:] // flags after the command word are its own
			return c, true
		}
		if !inline {
			if i+1 == len(args) {
				return c, false
			}
			i++
			value = args[i]
		}
		*dst = value
	}
	return c, true
}

// wrapUsage answers --help, or says what is wrong with the arguments, in
// kong's words; a command word that starts with "-" must follow "--".
func (inv *Invocation) wrapUsage(args []string) int {
	var c wrapCLI
	parser, err := kong.New(&c,
		kong.Name(inv.bin.Name+" wrap"),
		kong.Description("Run a command and show it on the surface as an agent's turn: started, then finished, failed or interrupted. "+
			"The command keeps the terminal and its streams; wrap exits with its status."),
		kong.Writers(inv.stdout, inv.stderr),
		kong.Exit(func(code int) { panic(exitRequest(code)) }))
	if err != nil {
		panic(err)
	}
	if _, err := parser.Parse(args); err != nil {
		fmt.Fprintf(inv.stderr, "%s wrap: %v\n", inv.bin.Name, err)
		return 2
	}
	if len(c.Command) > 0 && c.Command[0] != "--" && strings.HasPrefix(c.Command[0], "-") {
		// kong's passthrough took a mistyped flag for the command.
		fmt.Fprintf(inv.stderr, "%s wrap: unknown flag %s (a command that starts with - goes after --)\n", inv.bin.Name, c.Command[0])
		return 2
	}
	fmt.Fprintf(inv.stderr, "%s wrap: %q: not understood (see %s wrap --help)\n", inv.bin.Name, args, inv.bin.Name)
	return 2
}

// outcome is how a run ended, as the kind of an agent's turn's end and its
// words: finished, failed (a status, a signal) or interrupted (the signal
// of ^C, interrupt; nil where there is none).
func outcome(status int, sig, interrupt os.Signal, d time.Duration) (agent.Kind, string) {
	after := " after " + d.Truncate(time.Second).String()
	switch {
	case sig != nil && sig == interrupt:
		return agent.Interrupted, "interrupted" + after
	case sig != nil:
		return agent.Error, "killed by " + signalName(sig) + after
	case status == 0:
		return agent.TurnEnd, "exit 0" + after
	}
	return agent.Error, "exit " + strconv.Itoa(status) + after
}

// relayer feeds the relay process. A relay that did not start (or died)
// costs the surface its events, never the command anything.
type relayer struct {
	w   io.WriteCloser
	cmd *exec.Cmd
	// sent is every event so far, for a second relay: until the first has
	// left our process group, a ^C reaches it too, and kills it before it
	// reads anything (one run in about fifteen, under load, in
	// TestWrapControlC).
	sent      [][]string
	restarted bool
}

// startRelay starts this binary again as `wrap --relay`, detached from the
// terminal (its own session: no ^C, no hangup reaches it) and from our
// streams (it never prints on them), to deliver the events one after
// another, each with the runtime's own deadline, while the command runs and
// after wrap has exited.
func startRelay() *relayer {
	self, err := selfPath()
	if err != nil {
		return &relayer{}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return &relayer{}
	}
	cmd := &exec.Cmd{Path: self, Args: []string{os.Args[0], "wrap", "--relay"}, Stdin: r}
	detach(cmd)
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return &relayer{}
	}
	return &relayer{w: w, cmd: cmd}
}

func (r *relayer) send(args []string) {
	r.sent = append(r.sent, args)
	if r.write(args) || r.restarted {
		return
	}
	// The relay is gone (the pipe is broken): start another, once, and
	// give it everything.
	r.close()
	next := startRelay()
	next.sent, next.restarted = r.sent, true
	*r = *next
	for _, a := range r.sent {
		if !r.write(a) {
			return
		}
	}
}

// write sends one event line, and reports whether the relay took it.
func (r *relayer) write(args []string) bool {
	if r.w == nil {
		return false
	}
	b, _ := json.Marshal(args)
	if _, err := r.w.Write(append(b, '\n')); err != nil {
		r.w.Close()
		r.w = nil
		return false
	}
	return true
}

func (r *relayer) close() {
	if r.w != nil {
		r.w.Close()
	}
	if r.cmd != nil {
		r.cmd.Process.Release()
	}
}

// relay delivers each line's event by running this binary with its
// arguments, in order, until the input ends.
func relay(in io.Reader) {
	self, err := selfPath()
	if err != nil {
		return
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var args []string
		if json.Unmarshal(sc.Bytes(), &args) != nil || len(args) == 0 {
			continue
		}
		cmd := &exec.Cmd{Path: self, Args: append([]string{os.Args[0]}, args...)}
		if cmd.Start() != nil {
			continue
		}
		timer := time.AfterFunc(relayBudget, func() { cmd.Process.Kill() })
		cmd.Wait()
		timer.Stop()
	}
}

// selfPath is this executable. The name it was run by decides which binary
// it is (the test binary serves them all), so that path is preferred.
func selfPath() (string, error) {
	if strings.ContainsRune(os.Args[0], filepath.Separator) {
		return filepath.Abs(os.Args[0])
	}
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return filepath.Abs(p)
	}
	return os.Executable()
}

// quoteArgs is a command line as a person would type it: arguments with
// spaces or shell characters in single quotes.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// cause drops exec's "exec: "x": " prefix, which repeats the command.
func cause(err error) error {
	var e *exec.Error
	if errors.As(err, &e) {
		return e.Err
	}
	return err
}
