package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
)

// A Surface is one desktop surface's side of the wire: it checks a
// delivery against the surface's own fixed shape, names the host in it,
// and returns the request that carries it out with the desktop's own
// settings (its target, its socket, its token). Nothing the remote end
// says picks a path, a command or a target. The error says why a delivery
// is refused, in words that hold nothing of its content: it is logged.
type Surface func(host string, d Delivery) (Carry, error)

// Carry is a checked delivery, ready to be carried out.
type Carry struct {
	Request transport.Request
	// Within bounds carrying it out (zero: DefaultWithin). For an Ask, the
	// wait for the person's answer.
	Within time.Duration
	// What the debug log says the delivery was about, as the local
	// binary's line would.
	Agent, Event, Kind, Session string
}

// ErrSkip wraps a Surface's reason for carrying nothing out that is no
// refusal: the surface is switched off or absent on this desktop, as a
// local hook would skip it (logged as outcome "nothing").
var ErrSkip = errors.New("nothing to do here")

// DefaultWithin is a delivery's budget when its surface names none: a
// local hook's (hook.Budget).
const DefaultWithin = 3 * time.Second

// Host is one remote end: its name on the desktop's surfaces and the
// command that gives a pipe to its relay.
type Host struct {
	Name string
	Argv []string
}

// Backoff between connections: from MinBackoff, doubling to MaxBackoff;
// back to MinBackoff after a connection that lived Stable.
const (
	MinBackoff = time.Second
	MaxBackoff = 30 * time.Second
	Stable     = time.Minute
)

// MaxAsks bounds the approvals a host may have waiting at once: each holds
// a connection to Coucou open. Past it an Ask is answered empty at once.
const MaxAsks = 8

// Desktop is `hookwire remote`: a client per host that reads the relay's
// stream and carries out each delivery on this desktop.
type Desktop struct {
	// Surfaces by wire name (Pulse, Coucou, VPet).
	Surfaces map[string]Surface
	// Version is this binary's, for the log.
	Version string
	// Log is the debug log (PULSE_LOG), "" for none.
	Log string
	// Stderr gets one line per connect, disconnect and refusal of a relay.
	Stderr io.Writer
	// Once runs each host's command once: Run returns when all ended.
	Once bool
	// Backoff overrides MinBackoff (tests).
	Backoff time.Duration

	errMu sync.Mutex
}

// Run runs every host until ctx is done (SIGINT, SIGTERM), or, with Once,
// until each host's command has ended.
func (d *Desktop) Run(ctx context.Context, hosts []Host) {
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.host(ctx, h)
		}()
	}
	wg.Wait()
}

// say writes one line for the person running it.
func (d *Desktop) say(format string, args ...any) {
	d.errMu.Lock()
	defer d.errMu.Unlock()
	fmt.Fprintf(d.Stderr, "hookwire remote: "+format+"\n", args...)
}

// host connects, reads, and reconnects with backoff until ctx is done.
func (d *Desktop) host(ctx context.Context, h Host) {
	backoff := d.minBackoff()
	var done progress // across the host's connections
	for {
		started := time.Now()
		err := d.connect(ctx, h, &done)
		lived := time.Since(started)
		if ctx.Err() != nil {
			d.say("%s: stopped", h.Name)
			return
		}
		why := "the command ended"
		if err != nil {
			why = err.Error()
		}
		if d.Once {
			d.say("%s: disconnected after %s: %s", h.Name, lived.Round(time.Millisecond), why)
			return
		}
		if lived >= Stable {
			backoff = d.minBackoff()
		}
		d.say("%s: disconnected after %s: %s; again in %s", h.Name, lived.Round(time.Millisecond), why, backoff)
		select {
		case <-ctx.Done():
			d.say("%s: stopped", h.Name)
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, MaxBackoff)
	}
}

func (d *Desktop) minBackoff() time.Duration {
	if d.Backoff > 0 {
		return d.Backoff
	}
	return MinBackoff
}

// conn is one connection to a host's relay.
type conn struct {
	d    *Desktop
	host Host
	ctx  context.Context
	// askCtx ends with the connection: its approvals are moot then.
	askCtx context.Context

	wmu sync.Mutex
	in  io.WriteCloser // the relay's stdin: Controls

	asks chan struct{} // a slot per waiting Ask
	done *progress
	// ackMu is held from a delivery's start to its ack, so that a stop
	// closes the relay's stdin between two deliveries, after acking what
	// was carried out: the next `hookwire remote` (a new process, with no
	// progress of this one's) must not be replayed what it already showed.
	ackMu   sync.Mutex
	pending uint64 // the highest seq carried out and not yet acked
	stopped bool   // the relay's stdin is closed: nothing more is carried out
	refused int    // refused lines, for the log's bound
	helloed bool
}

// connect runs the host's command once and serves its stream until it ends.
func (d *Desktop) connect(ctx context.Context, h Host, done *progress) error {
	cmd := exec.Command(h.Argv[0], h.Argv[1:]...)
	ownGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = &prefixed{d: d, name: h.Name}
	// Something the command left behind holding its stderr must not keep
	// this connection from ending.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	d.say("%s: connecting: %s", h.Name, strings.Join(h.Argv, " "))
	// The approvals still waiting when the connection ends are given up:
	// the hooks that asked were answered by the relay going away, and
	// Coucou's cards close with their connections.
	askCtx, giveUp := context.WithCancel(context.Background())
	c := &conn{d: d, host: h, ctx: ctx, askCtx: askCtx, in: in, asks: make(chan struct{}, MaxAsks), done: done}
	// Stopping: the relay's stdin closes first, so that it ends as on a
	// dropped connection (its socket unlinked); its group is killed if it
	// has not after a moment.
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			c.stop()
			select {
			case <-stopped:
			case <-time.After(time.Second):
				killGroup(cmd)
			}
		case <-stopped:
		}
	}()
	serr := c.serve(out)
	giveUp()
	in.Close()
	if serr != nil {
		// A relay refused (wrong wire) or a read error: the command need
		// not end by itself.
		killGroup(cmd)
	}
	werr := cmd.Wait()
	close(stopped)
	if serr != nil {
		return serr
	}
	return werr
}

// prefixed writes the command's stderr to ours, a line at a time, each
// named after the host and without control characters (ssh's own
// messages, the relay's). A connection's first maxStderr lines are said;
// a remote end that floods its stderr cannot flood the desktop's journal.
type prefixed struct {
	d     *Desktop
	name  string
	buf   []byte
	lines int
}

const maxStderr = 1000

func (p *prefixed) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		p.line(p.buf[:i])
		p.buf = p.buf[i+1:]
	}
	if len(p.buf) > 4096 { // a line with no end: said in pieces
		p.line(p.buf)
		p.buf = p.buf[:0]
	}
	return len(b), nil
}

func (p *prefixed) line(b []byte) {
	p.lines++
	switch {
	case p.lines <= maxStderr:
		p.d.say("%s: %s", p.name, clean(string(b)))
	case p.lines == maxStderr+1:
		p.d.say("%s: more on its stderr than %d lines: the rest of this connection's is not shown", p.name, maxStderr)
	}
}

// serve reads the stream: a Hello, then Deliveries, until EOF.
func (c *conn) serve(out io.Reader) error {
	r := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := readLine(r, MaxLine)
		if errors.Is(err, errTooLong) {
			c.refuse(0, "", "a line longer than %d bytes: dropped", MaxLine)
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.ackMu.Lock()
				c.ackPending()
				c.ackMu.Unlock()
				return nil
			}
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var env Envelope
		if err := json.Unmarshal(line, &env); err != nil {
			c.refuse(0, "", "a line that is not a JSON object")
			continue
		}
		if env.Hello != nil {
			if err := c.hello(env.Hello); err != nil {
				return err
			}
			continue
		}
		del := env.Delivery
		if del == nil {
			c.refuse(0, "", "a JSON object that is neither a hello nor a delivery")
			continue
		}
		if !c.helloed {
			c.refuse(del.Seq, del.Surface, "a delivery before the relay's hello")
			return errors.New("the relay sent a delivery before its hello")
		}
		c.deliver(*del, r.Buffered() == 0)
	}
}

// deliver carries out one delivery of the stream, or answers it (an Ask),
// unless the connection is stopping; paused says nothing more is buffered.
func (c *conn) deliver(del Delivery, paused bool) {
	c.ackMu.Lock()
	defer c.ackMu.Unlock()
	if c.stopped {
		return // read after the stop: the relay keeps it for the next connection
	}
	switch {
	case del.Ask != 0:
		c.ask(del)
	case del.Seq != 0 && c.done.again(del.Seq):
		// Carried out on the last connection, whose ack was lost with it:
		// the relay replays it, the surface must not see it twice. (Seq 0:
		// a delivery the relay took live, unspooled, from a hook whose disk
		// is full: never replayed.)
	default:
		c.carry(del)
		c.done.carried = max(c.done.carried, del.Seq)
	}
	c.pending = max(c.pending, del.Seq)
	// Acks are batched while a backlog streams: one when the stream pauses
	// (nothing more buffered), at a stop, and at the end.
	if paused {
		c.ackPending()
	}
}

// ackPending acks what was carried out since the last ack (under ackMu).
func (c *conn) ackPending() {
	c.ack(c.pending)
	c.pending = 0
}

// stop ends the connection from this side, between two deliveries: what
// was carried out is acked, then the relay's stdin closes.
func (c *conn) stop() {
	c.ackMu.Lock()
	defer c.ackMu.Unlock()
	c.ackPending()
	c.stopped = true
	c.in.Close()
}

// hello checks the relay's first line.
func (c *conn) hello(h *Hello) error {
	if c.helloed {
		c.refuse(0, "", "a second hello: ignored")
		return nil
	}
	if h.V != Version {
		return fmt.Errorf("the relay speaks wire version %d, this hookwire %d: install the same hookwire release on both machines", h.V, Version)
	}
	c.helloed = true
	c.done.from(h.Spool)
	c.d.say("%s: connected to the relay (hookwire %s on %s)", c.host.Name, short(h.Version), short(h.Host))
	return nil
}

// clean is a string from the remote end, made safe to print: one line,
// no control characters.
func clean(s string) string {
	return text.Keep(text.OneLine(s), func(b byte) bool { return b >= 0x20 && b != 0x7f })
}

// short is a name from the remote end, safe and short to print.
func short(s string) string {
	if s = clean(s); s == "" {
		return "?"
	}
	return text.ClipBytes(s, 64)
}

// ack tells the relay that every delivery up to seq is done.
func (c *conn) ack(seq uint64) {
	if seq == 0 {
		return
	}
	c.control(Control{Ack: seq})
}

// progress is how far a host's deliveries went, across its connections: the
// highest seq carried out, of the spool the relay's hello names. An ack can
// be lost with the connection (written into a dying ssh), and the relay then
// replays what was carried out already.
type progress struct {
	spool   string
	carried uint64
}

// again says a delivery was carried out on an earlier connection: the same
// spool, and a seq not past the last carried.
func (p *progress) again(seq uint64) bool {
	return p.spool != "" && seq <= p.carried
}

// from starts a connection's deliveries: a spool other than the last one's
// (a relay directory made again, or another machine behind the same name)
// starts over.
func (p *progress) from(spool string) {
	if spool != p.spool {
		*p = progress{spool: spool}
	}
}

func (c *conn) control(ctl Control) {
	b, err := json.Marshal(ctl)
	if err != nil || len(b) >= MaxLine {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.in.Write(append(b, '\n')) // a closed pipe: the connection is ending
}

// carry carries out one delivery, in order.
func (c *conn) carry(del Delivery) {
	start := time.Now()
	surface := c.d.Surfaces[del.Surface]
	if surface == nil {
		c.refuse(del.Seq, "", "a delivery for a surface that does not cross machines")
		return
	}
	task, err := surface(c.host.Name, del)
	if errors.Is(err, ErrSkip) {
		c.skip(del, task, err)
		return
	}
	if err != nil {
		c.refuse(del.Seq, del.Surface, "%v", err)
		return
	}
	// The delivery's own budget, not the connection's: a stop (SIGINT)
	// lets the one being carried out finish.
	reply, err := c.do(context.WithoutCancel(c.ctx), task)
	c.logSent(start, del, task, reply, err)
}

func (c *conn) do(parent context.Context, task Carry) (transport.Reply, error) {
	within := task.Within
	if within <= 0 {
		within = DefaultWithin
	}
	ctx, cancel := context.WithTimeout(parent, within)
	defer cancel()
	return task.Request.Do(ctx)
}

// ask shows an approval on this desktop and sends its answer back, without
// holding up the host's other deliveries: a person may take two minutes.
func (c *conn) ask(del Delivery) {
	answer := func(reply string) { c.control(Control{Answer: del.Ask, Reply: reply}) }
	surface := c.d.Surfaces[del.Surface]
	if surface == nil {
		c.refuse(0, "", "an approval for a surface that does not cross machines")
		answer("")
		return
	}
	task, err := surface(c.host.Name, del)
	if errors.Is(err, ErrSkip) {
		c.skip(del, task, err)
		answer("")
		return
	}
	if err != nil {
		c.refuse(0, del.Surface, "%v", err)
		answer("")
		return
	}
	select {
	case c.asks <- struct{}{}:
	default:
		c.refuse(0, del.Surface, "more than %d approvals waiting at once: answered with none", MaxAsks)
		answer("")
		return
	}
	go func() {
		defer func() { <-c.asks }()
		start := time.Now()
		reply, err := c.do(c.askCtx, task)
		c.logSent(start, del, task, reply, err)
		body := ""
		if err == nil {
			body = strings.TrimRight(string(reply.Body), "\r\n")
		}
		answer(body)
	}()
}

// refuse logs a line that is not carried out: why, never what it held.
// After the first few of a connection, one line in a thousand is logged:
// a relay that floods cannot fill the disk.
func (c *conn) refuse(seq uint64, surface, format string, args ...any) {
	c.refused++
	if c.refused > maxRefusedLogged && c.refused%1000 != 0 {
		return
	}
	why := fmt.Sprintf(format, args...)
	if c.refused > maxRefusedLogged {
		why = fmt.Sprintf("%s (%d lines refused on this connection)", why, c.refused)
	}
	if c.refused <= maxRefusedSaid {
		c.d.say("%s: refused %s", c.host.Name, why)
	}
	notes := []string{"from " + c.host.Name}
	if seq != 0 {
		notes[0] += fmt.Sprintf(" (seq %d)", seq)
	}
	c.d.append(logLine{
		Time: time.Now().UTC().Format(time.RFC3339Nano), Binary: binaryName(surface), Version: c.d.Version,
		Host: c.host.Name, Outcome: "refused", Error: why, Notes: notes,
	})
}

const (
	maxRefusedLogged = 100
	maxRefusedSaid   = 10
)

func binaryName(surface string) string {
	if surface == "" {
		return "hookwire remote"
	}
	return "hookwire remote " + surface
}
