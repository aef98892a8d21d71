//go:build unix

package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
)

// syncBuffer is the relay's stderr, written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is a running relay whose stdin and stdout are the test's.
type harness struct {
	t     *testing.T
	dir   string
	in    *io.PipeWriter
	lines chan []byte
	errs  *syncBuffer
	done  chan error
}

func startRelay(t *testing.T, dir string) *harness {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{t: t, dir: dir, in: inW, lines: make(chan []byte, 1000), errs: &syncBuffer{}, done: make(chan error, 1)}
	go func() {
		h.done <- Relay{Dir: dir, In: inR, Out: outW, Err: h.errs, Version: "test", Host: "devbox"}.Run(context.Background())
		outW.Close()
	}()
	go func() {
		br := bufio.NewReader(outR)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				h.lines <- l
			}
			if err != nil {
				close(h.lines)
				return
			}
		}
	}()
	if e := h.next(); e.Hello == nil || e.Hello.V != Version || e.Hello.Host != "devbox" {
		t.Fatalf("first line %+v, want the Hello", e)
	}
	t.Cleanup(func() { h.in.Close(); <-h.done })
	return h
}

// next is the relay's next line.
func (h *harness) next() Envelope {
	h.t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			h.t.Fatal("the relay's stdout ended")
		}
		var e Envelope
		if err := json.Unmarshal(l, &e); err != nil {
			h.t.Fatalf("line %q: %v", l, err)
		}
		return e
	case <-time.After(5 * time.Second):
		h.t.Fatalf("no line from the relay in 5 s; stderr: %s", h.errs)
	}
	return Envelope{}
}

// quiet checks the relay says nothing more for a moment.
func (h *harness) quiet() {
	h.t.Helper()
	select {
	case l := <-h.lines:
		h.t.Fatalf("unexpected line %s", l)
	case <-time.After(100 * time.Millisecond):
	}
}

func (h *harness) control(c Control) {
	b, _ := json.Marshal(c)
	h.in.Write(append(b, '\n'))
}

// eventually waits up to 2 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not after 2 s: %s", what)
}

func TestRelayReplaysFromAcked(t *testing.T) {
	dir := newDir(t)
	first := mustAppend(t, dir, line("a", 0, false))
	mustAppend(t, dir, line("b", 1, false))
	mustAppend(t, dir, line("c", 2, false))
	os.WriteFile(filepath.Join(dir, ackedFile), []byte(strconv.FormatUint(first, 10)+"\n"), 0o600)
	h := startRelay(t, dir)
	if p := h.next().Payload + "," + h.next().Payload; p != "1,2" {
		t.Fatalf("replayed %s, want 1,2 (after the ack)", p)
	}
	h.quiet()
}

func TestRelayStreamsOnPoke(t *testing.T) {
	dir := newDir(t)
	h := startRelay(t, dir)
	h.quiet()
	for i := range 3 {
		seq, poked, err := Hand(context.Background(), dir, line("a", i, false))
		if err != nil || !poked {
			t.Fatalf("Hand: poked %v, %v", poked, err)
		}
		if e := h.next(); e.Seq != seq || e.Payload != strconv.Itoa(i) {
			t.Fatalf("streamed %+v, want payload %d at seq %d", e.Delivery, i, seq)
		}
	}
}

func TestRelayCoalescesPulse(t *testing.T) {
	dir := newDir(t)
	for _, l := range []string{
		`{"t":1,"surface":"pulse","session":"a","keep":true,"event":"idle","payload":"start-a"}`,
		`{"t":1,"surface":"pulse","session":"a","event":"tool_start","payload":"stale-a"}`,
		`{"t":1,"surface":"pulse","session":"b","event":"tool_start","payload":"b"}`,
		`{"t":1,"surface":"coucou","session":"a","body":{"hook_event_name":"PreToolUse"}}`,
		`{"t":1,"surface":"pulse","session":"a","event":"turn_end","payload":"last-a"}`,
	} {
		mustAppend(t, dir, []byte(l))
	}
	h := startRelay(t, dir)
	var got []string
	for range 4 {
		e := h.next()
		got = append(got, e.Surface+":"+e.Payload)
	}
	if s := strings.Join(got, " "); s != "pulse:start-a pulse:b coucou: pulse:last-a" {
		t.Errorf("replayed %s", s)
	}
	h.quiet()
}

func TestRelayAckDeletesSegments(t *testing.T) {
	dir := newDir(t)
	pad := strings.Repeat("x", 100<<10)
	var seqs []uint64
	for i := range 6 { // two 100 KiB lines to a segment: segments 1, 2, 3
		b, _ := json.Marshal(Delivery{Time: 1, Surface: Pulse, Session: strconv.Itoa(i), Event: "text", Payload: pad})
		seqs = append(seqs, mustAppend(t, dir, b))
	}
	h := startRelay(t, dir)
	for range 6 {
		h.next()
	}
	sdir := filepath.Join(dir, spoolDir)
	h.control(Control{Ack: seqs[3]}) // the end of segment 2
	eventually(t, "segments 1 and 2 deleted", func() bool {
		segs, _ := segments(sdir)
		return len(segs) == 1 && segs[0] == 3
	})
	if got := readAcked(dir); got != seqs[3] {
		t.Errorf("acked %d, want %d", got, seqs[3])
	}
	// The newest segment stays, even wholly acked: the hooks append to it.
	h.control(Control{Ack: seqs[5]})
	eventually(t, "acked "+strconv.FormatUint(seqs[5], 10), func() bool { return readAcked(dir) == seqs[5] })
	if segs, _ := segments(sdir); len(segs) != 1 {
		t.Errorf("segments %v after acking all: the newest must stay", segs)
	}
	// An ack past what was sent is held to it.
	h.control(Control{Ack: seqs[5] + 1<<33})
	time.Sleep(50 * time.Millisecond)
	if got := readAcked(dir); got != seqs[5] {
		t.Errorf("acked %d past what was sent (%d)", got, seqs[5])
	}
}

func TestRelayAckRemovesKept(t *testing.T) {
	dir := newDir(t)
	d := Delivery{Seq: Seq(0, 100), // from a segment dropped before segment 1
		Time: 1, Surface: Pulse, Session: "a", Keep: true, Event: "session_end"}
	b, _ := json.Marshal(d)
	os.WriteFile(filepath.Join(dir, keptFile), append(b, '\n'), 0o600)
	later := mustAppend(t, dir, line("b", 1, false))
	h := startRelay(t, dir)
	if e := h.next(); e.Seq != d.Seq || e.Event != "session_end" {
		t.Fatalf("first replayed %+v, want the kept session end", e.Delivery)
	}
	if e := h.next(); e.Seq != later {
		t.Fatalf("then %+v, want the spool's line", e.Delivery)
	}
	h.control(Control{Ack: later})
	eventually(t, "kept.jsonl removed", func() bool {
		_, err := os.Stat(filepath.Join(dir, keptFile))
		return errors.Is(err, fs.ErrNotExist)
	})
}

func askLine(within time.Duration) []byte {
	b, _ := json.Marshal(Delivery{Ask: 1, WithinMS: within.Milliseconds(), Time: 1, Surface: Coucou, Session: "s",
		Body: json.RawMessage(`{"hook_event_name":"PermissionRequest"}`)})
	return b
}

func TestRelayAnswersAsk(t *testing.T) {
	dir := newDir(t)
	h := startRelay(t, dir)
	type result struct {
		reply []byte
		err   error
	}
	res := make(chan result, 2)
	for range 2 {
		go func() {
			b, err := Ask(context.Background(), dir, askLine(5*time.Second))
			res <- result{b, err}
		}()
	}
	a, b := h.next(), h.next()
	if a.Ask == 0 || b.Ask == 0 || a.Ask == b.Ask || a.Seq != 0 || a.WithinMS <= 0 || a.WithinMS > 5000 {
		t.Fatalf("asks %+v and %+v: want two distinct ids, no seq, the wait", a.Delivery, b.Delivery)
	}
	h.control(Control{Answer: a.Ask, Reply: `{"permissionDecision":"allow"}`})
	h.control(Control{Answer: b.Ask, Reply: "deny"})
	got := map[string]bool{}
	for range 2 {
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		got[string(r.reply)] = true
	}
	if !got[`{"permissionDecision":"allow"}`] || !got["deny"] {
		t.Errorf("answers %v", got)
	}
}

func TestRelayAskUnansweredInTime(t *testing.T) {
	dir := newDir(t)
	h := startRelay(t, dir)
	start := time.Now()
	go func() { <-h.lines }() // the ask, which nobody answers
	reply, err := Ask(context.Background(), dir, askLine(150*time.Millisecond))
	if err != nil || len(reply) != 0 {
		t.Errorf("Ask = %q, %v: want no answer", reply, err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > time.Second {
		t.Errorf("the relay answered after %v, want its WithinMS", d)
	}
}

// The desktop going away (EOF) ends the relay: its socket unlinked, a
// waiting hook answered with nothing at once.
func TestRelayEOF(t *testing.T) {
	dir := newDir(t)
	h := startRelay(t, dir)
	reply := make(chan []byte, 1)
	go func() {
		b, _ := Ask(context.Background(), dir, askLine(time.Minute))
		reply <- b
	}()
	h.next()
	h.in.Close()
	select {
	case err := <-h.done:
		h.done <- err // for the cleanup
		if err != nil {
			t.Fatalf("Run = %v at EOF", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the relay did not end at EOF")
	}
	select {
	case b := <-reply:
		if len(b) != 0 {
			t.Errorf("a waiting hook got %q", b)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a waiting hook was not answered at EOF")
	}
	if _, err := os.Lstat(SocketPath(dir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, poked, _ := Hand(context.Background(), dir, line("a", 1, false)); poked {
		t.Error("a poke reached a relay that ended")
	}
}

// The newest relay wins the socket; the older one leaves it alone at exit.
func TestRelayNewestWins(t *testing.T) {
	dir := newDir(t)
	old := startRelay(t, dir)
	newer := startRelay(t, dir)
	old.in.Close()
	<-old.done
	old.done <- nil
	if _, _, err := Hand(context.Background(), dir, line("a", 7, false)); err != nil {
		t.Fatal(err)
	}
	if e := newer.next(); e.Payload != "7" {
		t.Errorf("the newer relay streamed %+v", e.Delivery)
	}
}

// A client that is not this user is refused before its line is read; the
// hook, likewise, refuses a relay that is not its user's.
func TestRelayRefusesOtherUser(t *testing.T) {
	dir := newDir(t)
	// Set before the relay starts and restored after it ended (cleanups
	// run last first): its goroutines read it.
	p := transport.PeerUID
	t.Cleanup(func() { transport.PeerUID = p })
	transport.PeerUID = func(net.Conn) (int, error) { return os.Getuid() + 1, nil }
	h := startRelay(t, dir)
	conn, err := net.Dial("unix", SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(append(askLine(time.Second), '\n'))
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if b, _ := io.ReadAll(conn); len(b) != 0 {
		t.Errorf("answered %q", b)
	}
	conn.Close()
	h.quiet()
	if !strings.Contains(h.errs.String(), "refused") {
		t.Errorf("stderr %q does not say a connection was refused", h.errs)
	}
	if _, err := Ask(context.Background(), dir, askLine(time.Second)); !errors.Is(err, transport.ErrOtherUser) {
		t.Errorf("Ask to another user's relay: %v, want ErrOtherUser", err)
	}
	if err := SamePeer(conn); !errors.Is(err, transport.ErrOtherUser) {
		t.Errorf("SamePeer = %v", err)
	}
}

// As root, a real process of another uid connects: refused by its peer
// credentials (the seam above stands in for this elsewhere).
func TestRelayRefusesOtherUserForReal(t *testing.T) {
	py, err := exec.LookPath("/usr/bin/python3") // not a shim in a home nobody else can read
	if os.Getuid() != 0 || err != nil {
		t.Skip("needs root and python3, to connect as another uid")
	}
	base := t.TempDir()
	dir := filepath.Join(base, "relay")
	if err := Create(dir); err != nil {
		t.Fatal(err)
	}
	h := startRelay(t, dir)
	// Let nobody reach the socket: the peer check is what refuses it.
	for d := dir; d != filepath.Clean(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	os.Chmod(SocketPath(dir), 0o666)
	// It prints what it is answered; the relay hanging up (a broken pipe,
	// a reset) is no answer.
	script := `import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(3)
try:
    s.sendall(sys.argv[2].encode()+b"\n"); sys.stdout.write(s.recv(100).decode())
except (BrokenPipeError, ConnectionResetError):
    pass`
	cmd := exec.Command(py, "-c", script, SocketPath(dir), string(askLine(time.Second)))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the other user's client: %v: %s", err, out)
	}
	if len(out) != 0 {
		t.Errorf("answered another user: %q", out)
	}
	h.quiet() // nothing reached the desktop
	if !strings.Contains(h.errs.String(), "another user (uid 65534)") {
		t.Errorf("stderr %q", h.errs)
	}
}

// A relay that accepts and never answers keeps the hook no longer than its
// deadline.
func TestAskHungRelay(t *testing.T) {
	dir := newDir(t)
	listenRelay(t, dir, false) // held open, never answered
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Ask(ctx, dir, askLine(time.Minute))
	if !errors.Is(err, transport.ErrDeadline) {
		t.Errorf("Ask = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Errorf("Ask took %v past a 200 ms deadline", d)
	}
}

func TestAskWithoutRelay(t *testing.T) {
	dir := newDir(t)
	start := time.Now()
	if _, err := Ask(context.Background(), dir, askLine(time.Minute)); !errors.Is(err, ErrNoDesktop) {
		t.Errorf("Ask = %v, want ErrNoDesktop", err)
	}
	// A socket left by a relay that died: nobody listens.
	ln, _ := net.Listen("unix", SocketPath(dir))
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Ask(context.Background(), dir, askLine(time.Minute)); !errors.Is(err, ErrNoDesktop) {
		t.Errorf("Ask to a stale socket = %v, want ErrNoDesktop", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("took %v: no answer must come at once", d)
	}
}

// A control line past MaxLine is dropped whole; the next one is read.
func TestRelayLongControl(t *testing.T) {
	dir := newDir(t)
	seq := mustAppend(t, dir, line("a", 0, false))
	h := startRelay(t, dir)
	h.next()
	h.in.Write(append([]byte(`{"reply":"`), bytes.Repeat([]byte("x"), MaxLine+10)...))
	h.in.Write([]byte("\"}\n"))
	h.control(Control{Ack: seq})
	eventually(t, "the ack after a long line", func() bool { return readAcked(dir) == seq })
}

func TestCoalesce(t *testing.T) {
	in := []Delivery{
		{Surface: Pulse, Session: "a", Payload: "1"},
		{Surface: VPet, Session: "a", Payload: "v"},
		{Surface: Pulse, Session: "a", Keep: true, Payload: "2"},
		{Surface: Pulse, Session: "", Payload: "bare1"},
		{Surface: Pulse, Session: "a", Payload: "3"},
		{Surface: Pulse, Session: "", Payload: "bare2"},
	}
	if p := payloads(Coalesce(in)); p != "v,2,3,bare2" {
		t.Errorf("Coalesce kept %s, want v,2,3,bare2", p)
	}
}

// listenRelay stands in for a relay at dir that only accepts: each
// connection is closed at once (a poke taken) or, with closeAtOnce false,
// held open unanswered until the test ends.
func listenRelay(tb testing.TB, dir string, closeAtOnce bool) {
	tb.Helper()
	ln, err := net.Listen("unix", SocketPath(dir))
	if err != nil {
		tb.Fatal(err)
	}
	held := make(chan []net.Conn)
	tb.Cleanup(func() {
		ln.Close()
		for _, c := range <-held {
			c.Close()
		}
	})
	go func() {
		var conns []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				held <- conns
				return
			}
			if closeAtOnce {
				c.Close()
				continue
			}
			conns = append(conns, c)
		}
	}()
}
