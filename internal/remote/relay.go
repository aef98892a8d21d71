package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/transport"
)

// Relay is `hookwire relay`, run on the agent's machine by the desktop
// (over ssh): its stdin and stdout are the pipe to the desktop, its stderr
// the desktop's stderr.
type Relay struct {
	Dir     string
	In      io.Reader
	Out     io.Writer
	Err     io.Writer
	Version string // this binary's, in the Hello
	Host    string // this machine's hostname, in the Hello (for the desktop's log)
}

// Time limits of the relay's socket.
const (
	// lineWithin bounds a hook's line on the socket: a hook writes it at
	// once, or it is not a hook.
	lineWithin = 2 * time.Second
	// maxAskWait caps an ask's WithinMS: Coucou's longest wait (--ask,
	// 125 s), and a little.
	maxAskWait = 130 * time.Second
)

// relay is one run's state. The main goroutine reads the spool on each
// poke and writes what is new; the Controls are read and carried out on a
// goroutine of their own, so that a desktop blocked writing acks never
// waits for a relay blocked writing lines.
type relay struct {
	Relay
	out     sync.Mutex // one line at a time on stdout
	outErr  error
	sent    atomic.Uint64 // the highest Seq written
	acked   atomic.Uint64 // the highest the desktop acked (held to sent)
	nextAsk atomic.Uint64
	// persisting: relay/acked and what is known of a full disk, under
	// persistMu. An ack not persisted (a full disk) is retried until it is:
	// a relay restarted before would replay what it covers.
	persistMu sync.Mutex
	persisted uint64 // the highest ack in relay/acked
	failing   error  // the last persisting's failure, nil when none
	failedSeq uint64 // the ack it failed
	full      fullEpisode
	retry     chan struct{} // a persisting failed: retry later
	asksMu    sync.Mutex
	asks      map[uint64]chan string
	seg       uint32 // where the next scan starts
	off       int64
}

// Run serves until stdin ends (the desktop went away): it binds the socket,
// says Hello, replays the backlog (kept.jsonl, then the spool from the last
// ack), then streams each new line as a hook pokes. At EOF it closes and
// unlinks its socket and returns nil.
func (cfg Relay) Run(ctx context.Context) error {
	if err := Create(cfg.Dir); err != nil {
		return fmt.Errorf("relay directory: %w", err)
	}
	r := &relay{Relay: cfg, asks: map[uint64]chan string{}, retry: make(chan struct{}, 1)}
	ln, unlink, err := listen(cfg.Dir)
	if err != nil {
		return err
	}
	defer unlink()
	accepted := make(chan struct{})
	defer func() { <-accepted }() // the accept loop is done when Run returns
	defer ln.Close()
	pokes := make(chan struct{}, 1)
	go func() {
		defer close(accepted)
		r.accept(ln, pokes)
	}()
	r.acked.Store(readAcked(cfg.Dir))
	r.persisted = r.acked.Load()
	r.start()
	r.write(Envelope{Hello: &Hello{V: Version, Version: cfg.Version, Host: cfg.Host, Spool: spoolID(cfg.Dir)}})
	n := r.scan(true)
	fmt.Fprintf(cfg.Err, "hookwire relay: %s: %d spooled deliveries sent, streaming\n", cfg.Dir, n)
	eof := make(chan error, 1)
	go func() { eof <- r.controls() }()
	defer r.closeAsks()
	// The last acks, if they could not be persisted yet: once more on the
	// way out (the desktop's last ack may have come with its EOF).
	defer r.persist()
	var retry <-chan time.Time // armed while a persisting failed
	backoff := minRetry
	for {
		if err := r.writeErr(); err != nil {
			return fmt.Errorf("writing to the desktop: %w", err)
		}
		select {
		case <-pokes:
			r.scan(false)
			// A hook could append: there may be space for the ack too.
			r.persist()
		case <-r.retry:
			if retry == nil {
				retry = time.After(backoff)
			}
		case <-retry:
			retry = nil
			if r.persist() {
				backoff = minRetry
			} else {
				backoff = min(2*backoff, maxRetry)
			}
		case err := <-eof:
			return err
		case <-ctx.Done():
			return nil
		}
	}
}

// An ack that could not be persisted (a full disk) is retried after
// minRetry, doubling to maxRetry, until it is; a poke or another ack
// retries it at once. Nothing runs on a timer otherwise.
const (
	minRetry = time.Second
	maxRetry = 30 * time.Second
)

// listen binds relay.sock, replacing a stale one (the newest relay wins);
// unlink removes it at the end only if it is still this relay's.
func listen(dir string) (net.Listener, func(), error) {
	path := SocketPath(dir)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, nil, fmt.Errorf("%s is not a socket (%v): remove it", path, fi.Mode().Type())
		}
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // a newer relay's socket stays
	os.Chmod(path, 0o600)
	mine, _ := os.Lstat(path)
	return ln, func() {
		if now, err := os.Lstat(path); err == nil && mine != nil && os.SameFile(now, mine) {
			os.Remove(path)
		}
	}, nil
}

// accept serves the socket: a connection from another user is refused; one
// that says nothing is a poke; one line is an ask.
func (r *relay) accept(ln net.Listener, pokes chan<- struct{}) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return // closed
		}
		if err := SamePeer(conn); err != nil {
			fmt.Fprintf(r.Err, "hookwire relay: a connection refused: %v\n", err)
			conn.Close()
			continue
		}
		go r.serve(conn, pokes)
	}
}

// SamePeer refuses a client that is not this user (peer credentials), as
// the hooks refuse a relay that is not theirs. Where the system cannot tell
// (PeerUID -1), the directory's mode 0700 is the guard.
func SamePeer(conn net.Conn) error {
	uid, err := transport.PeerUID(conn)
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if uid >= 0 && uid != os.Getuid() {
		return fmt.Errorf("%w (uid %d)", transport.ErrOtherUser, uid)
	}
	return nil
}

func (r *relay) serve(conn net.Conn, pokes chan<- struct{}) {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(lineWithin))
	line, err := readLine(bufio.NewReader(conn), MaxLine)
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(r.Err, "hookwire relay: a hook's line: %v\n", err)
		return
	}
	if len(line) == 0 {
		select { // a poke; one pending is enough
		case pokes <- struct{}{}:
		default:
		}
		return
	}
	var d Delivery
	if json.Unmarshal(line, &d) != nil {
		fmt.Fprintf(r.Err, "hookwire relay: a hook's line is not a delivery: ignored\n")
		return
	}
	if d.Ask == 0 {
		r.live(d)
		conn.Write([]byte(liveReply + "\n"))
		return
	}
	conn.Write([]byte(r.ask(d) + "\n"))
}

// liveReply is the relay's word to a hook whose delivery it took live.
const liveReply = "live"

// live sends a delivery a hook could not spool (its disk is full) to the
// desktop at once, as it is: Seq 0, so the desktop carries it out without
// acking it, and no replay ever repeats it. The full disk is noted for
// doctor.
func (r *relay) live(d Delivery) {
	d.Seq, d.Ask, d.WithinMS = 0, 0, 0
	r.write(Envelope{Delivery: &d})
	r.persistMu.Lock()
	r.full.note(time.Now(), false)
	if r.full.record(r.Dir) != nil {
		r.retryLater()
	}
	r.persistMu.Unlock()
}

// ask sends an approval to the desktop, renumbered, and waits for its
// answer within the hook's WithinMS (capped): "" when none came.
func (r *relay) ask(d Delivery) string {
	within := min(time.Duration(d.WithinMS)*time.Millisecond, maxAskWait)
	if within <= 0 {
		return ""
	}
	id := r.nextAsk.Add(1)
	answer := make(chan string, 1)
	r.asksMu.Lock()
	r.asks[id] = answer
	r.asksMu.Unlock()
	defer func() {
		r.asksMu.Lock()
		delete(r.asks, id)
		r.asksMu.Unlock()
	}()
	d.Ask, d.Seq, d.WithinMS = id, 0, within.Milliseconds()
	r.write(Envelope{Delivery: &d})
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case a := <-answer:
		return a
	case <-t.C:
		return ""
	}
}

// closeAsks answers every waiting hook with nothing: the desktop is gone.
func (r *relay) closeAsks() {
	r.asksMu.Lock()
	defer r.asksMu.Unlock()
	for id, c := range r.asks {
		c <- ""
		delete(r.asks, id)
	}
}

// controls reads the desktop's Controls until EOF (nil) or a read error.
func (r *relay) controls() error {
	br := bufio.NewReaderSize(r.In, 64<<10)
	for {
		line, err := readLine(br, MaxLine)
		if len(line) > 0 {
			var c Control
			if json.Unmarshal(line, &c) != nil {
				fmt.Fprintf(r.Err, "hookwire relay: a line from the desktop is not a control: ignored\n")
			} else {
				r.control(c)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, errTooLong) {
			return err
		}
	}
}

func (r *relay) control(c Control) {
	if c.Answer != 0 {
		r.asksMu.Lock()
		if a, ok := r.asks[c.Answer]; ok {
			a <- c.Reply
			delete(r.asks, c.Answer)
		}
		r.asksMu.Unlock()
	}
	if c.Ack != 0 {
		r.ack(min(c.Ack, r.sent.Load())) // never past what was sent
	}
}

// ack takes the desktop's ack: every delivery up to seq is carried out.
func (r *relay) ack(seq uint64) {
	for {
		old := r.acked.Load()
		if seq <= old || r.acked.CompareAndSwap(old, seq) {
			break
		}
	}
	// Even an ack of nothing new retries one not persisted yet.
	r.persist()
}

// persist writes the highest ack to relay/acked and deletes what it covers:
// the segments wholly acked (never the newest, which the hooks append to),
// kept.jsonl once all of it is. Those go first: on a full disk they free
// the space the ack needs. It reports whether relay/acked holds the ack;
// when it does not, a retry is scheduled.
func (r *relay) persist() bool {
	r.persistMu.Lock()
	defer r.persistMu.Unlock()
	seq := r.acked.Load()
	if seq <= r.persisted && !r.full.pending() {
		return true
	}
	release, err := lock(context.Background(), r.Dir)
	if err != nil {
		r.persistFailed(seq, err)
		return false
	}
	defer release()
	if seq > r.persisted {
		if old := readAcked(r.Dir); old >= seq {
			r.persisted = seq // another relay acked further
		} else {
			r.dropAcked(seq)
			if err := writeAcked(r.Dir, seq); err != nil {
				r.persistFailed(seq, err)
				return false
			}
			r.persisted = seq
		}
	}
	if r.failing != nil {
		fmt.Fprintf(r.Err, "hookwire relay: ack %d persisted\n", seq)
		r.failing = nil
	}
	if err := r.full.record(r.Dir); err != nil {
		r.retryLater()
		return false
	}
	return true
}

// persistFailed says why an ack could not be persisted, once per episode,
// and schedules a retry.
func (r *relay) persistFailed(seq uint64, err error) {
	if NoSpace(err) {
		// Counted once per ack, not per retry.
		if r.failing == nil || seq > r.failedSeq {
			r.full.note(time.Now(), true)
		}
		r.failedSeq = seq
	}
	if r.failing == nil {
		fmt.Fprintf(r.Err, "hookwire relay: ack %d: %v (retried until it is persisted)\n", seq, err)
	}
	r.failing = err
	r.retryLater()
}

// retryLater asks Run's loop for a retry of persist.
func (r *relay) retryLater() {
	select {
	case r.retry <- struct{}{}:
	default:
	}
}

// writeAcked persists an ack: a variable, so that a test can make the disk
// full.
var writeAcked = func(dir string, seq uint64) error {
	return safefile.WriteFile(filepath.Join(dir, ackedFile), []byte(strconv.FormatUint(seq, 10)+"\n"), 0o600)
}

// dropAcked deletes what an ack of seq covers, under the lock.
func (r *relay) dropAcked(seq uint64) {
	sdir := filepath.Join(r.Dir, spoolDir)
	segs, _ := segments(sdir)
	for i, s := range segs {
		if i == len(segs)-1 || s > segOf(seq) {
			break
		}
		fi, err := os.Lstat(segmentPath(sdir, s))
		if err == nil && (s < segOf(seq) || fi.Size() <= offOf(seq)) {
			os.Remove(segmentPath(sdir, s))
		}
	}
	kept, err := safefile.ReadFile(filepath.Join(r.Dir, keptFile))
	if err == nil && lastKept(kept) <= seq {
		os.Remove(filepath.Join(r.Dir, keptFile))
	}
}

// lastKept is the highest Seq in kept.jsonl's lines.
func lastKept(data []byte) (last uint64) {
	eachLine(data, func(_ int64, line []byte) {
		if d, ok := decode(line); ok {
			last = max(last, d.Seq)
		}
	})
	return last
}

// start places the first scan after the last ack: in its segment, or at
// the oldest segment after it. An ack past every segment means the spool
// was emptied by hand: everything there is new.
func (r *relay) start() {
	acked := r.acked.Load()
	r.seg, r.off = segOf(acked), offOf(acked)
	segs, _ := segments(filepath.Join(r.Dir, spoolDir))
	if len(segs) > 0 && segs[len(segs)-1] < r.seg {
		fmt.Fprintf(r.Err, "hookwire relay: the spool restarted below the last ack: sending all of it\n")
		r.seg, r.off = 0, 0
		r.acked.Store(0)
	}
}

// scan sends what the spool gained since the last scan (the first: the
// backlog from the last ack, kept.jsonl's first), coalesced, and returns
// how many deliveries it sent.
func (r *relay) scan(first bool) int {
	var batch []Delivery
	if first || r.keptChanged() {
		batch = r.readKept()
	}
	sdir := filepath.Join(r.Dir, spoolDir)
	segs, err := segments(sdir)
	if err != nil {
		fmt.Fprintf(r.Err, "hookwire relay: spool: %v\n", err)
	}
	for i, s := range segs {
		if s < r.seg {
			continue
		}
		if s > r.seg {
			r.seg, r.off = s, 0
		}
		batch = append(batch, r.readSegment(sdir, s, i == len(segs)-1)...)
	}
	batch = Coalesce(batch)
	for i := range batch {
		r.write(Envelope{Delivery: &batch[i]})
	}
	return len(batch)
}

// keptChanged reports a kept.jsonl that a full spool wrote since the last
// scan (its keep lines may be ones the desktop has not had yet).
func (r *relay) keptChanged() bool {
	_, err := os.Lstat(filepath.Join(r.Dir, keptFile))
	return err == nil
}

// readKept is kept.jsonl's deliveries after what was sent and acked.
func (r *relay) readKept() []Delivery {
	data, err := safefile.ReadFile(filepath.Join(r.Dir, keptFile))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(r.Err, "hookwire relay: %v\n", err)
		}
		return nil
	}
	var out []Delivery
	floor := max(r.acked.Load(), r.sent.Load())
	eachLine(data, func(_ int64, line []byte) {
		if d, ok := decode(line); ok && d.Seq > floor {
			out = append(out, d)
		}
	})
	return out
}

// readSegment reads segment s from where the last scan stopped. In the
// newest segment a last line without its newline is being written: it
// waits for the next scan. In an older one it is torn for good: skipped.
func (r *relay) readSegment(sdir string, s uint32, head bool) []Delivery {
	f, err := safefile.Open(segmentPath(sdir, s), os.O_RDONLY, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // a full spool dropped it: its keep lines are in kept.jsonl
			fmt.Fprintf(r.Err, "hookwire relay: spool: %v\n", err)
		}
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, r.off, 1<<40))
	if err != nil {
		fmt.Fprintf(r.Err, "hookwire relay: spool: %v\n", err)
		return nil
	}
	var out []Delivery
	base := r.off
	complete := eachLine(data, func(end int64, line []byte) {
		seq := Seq(s, base+end)
		d, ok := decode(line)
		if !ok {
			fmt.Fprintf(r.Err, "hookwire relay: spool line %d is not a delivery: skipped\n", seq)
			return
		}
		d.Seq, d.Ask, d.WithinMS = seq, 0, 0
		out = append(out, d)
	})
	if head {
		r.off = base + complete
	} else {
		r.off = base + int64(len(data))
	}
	return out
}

// Coalesce drops, from a backlog, what a later delivery makes stale: a
// Pulse delivery that is not a session's start or end, when a later Pulse
// delivery of the same session follows (its state and cumulative tokens
// say all the earlier one did). Order is kept.
func Coalesce(batch []Delivery) []Delivery {
	later := map[string]bool{}
	drop := make([]bool, len(batch))
	for i := len(batch) - 1; i >= 0; i-- {
		d := batch[i]
		if d.Surface != Pulse {
			continue
		}
		drop[i] = !d.Keep && later[d.Session]
		later[d.Session] = true
	}
	out := batch[:0:0]
	for i, d := range batch {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return out
}

// write sends one line to the desktop; the first error is kept (writeErr).
func (r *relay) write(e Envelope) {
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	r.out.Lock()
	defer r.out.Unlock()
	if r.outErr != nil {
		return
	}
	if _, err := r.Out.Write(append(b, '\n')); err != nil {
		r.outErr = err
	}
	if e.Delivery != nil && e.Delivery.Seq > r.sent.Load() {
		r.sent.Store(e.Delivery.Seq)
	}
}

func (r *relay) writeErr() error {
	r.out.Lock()
	defer r.out.Unlock()
	return r.outErr
}
