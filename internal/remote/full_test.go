//go:build linux

package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
)

// An ack the relay cannot persist (a full disk: here a writer that says
// ENOSPC) is persisted once there is space again, without another ack from
// the desktop; a relay started afterwards replays nothing; relay/full says
// the disk was full.
func TestRelayPersistsAckWhenSpaceReturns(t *testing.T) {
	dir := newDir(t)
	var mu sync.Mutex
	full := true
	real := writeAcked
	writeAcked = func(dir string, seq uint64) error {
		mu.Lock()
		defer mu.Unlock()
		if full {
			return &fs.PathError{Op: "write", Path: filepath.Join(dir, ackedFile), Err: syscall.ENOSPC}
		}
		return real(dir, seq)
	}
	t.Cleanup(func() { writeAcked = real })
	var last uint64
	for i := range 3 {
		last = mustAppend(t, dir, line("s"+strconv.Itoa(i), i, false))
	}
	h := startRelay(t, dir)
	for range 3 {
		h.next()
	}
	h.control(Control{Ack: last})
	eventually(t, "the relay says the ack is not persisted", func() bool {
		return strings.Contains(h.errs.String(), "no space left on device (retried until it is persisted)")
	})
	if got := readAcked(dir); got != 0 {
		t.Fatalf("acked %d on a full disk", got)
	}
	mu.Lock()
	full = false
	mu.Unlock()
	// No other ack comes: the relay retries by itself (after minRetry).
	deadline := time.Now().Add(minRetry + 2*time.Second)
	for readAcked(dir) != last && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := readAcked(dir); got != last {
		t.Fatalf("acked %d once there is space, want %d; stderr:\n%s", got, last, h.errs)
	}
	rec, err := ReadFull(dir)
	if err != nil || rec == nil || rec.AcksLate != 1 || rec.Live != 0 || rec.First.IsZero() {
		t.Errorf("relay/full: %+v, %v; want one ack persisted late", rec, err)
	}
	h.in.Close()
	<-h.done
	h.done <- nil // for the first harness's cleanup
	again := startRelay(t, dir)
	again.quiet()
}

// mountTmpfs mounts a tmpfs of size bytes on a new directory, or skips:
// mounting needs root (CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill takes every byte left on dir's filesystem, and returns what frees
// them.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !NoSpace(err) {
				t.Fatal(err)
			}
			break
		}
	}
	// A byte at a time fills a last partial page, if any.
	for {
		if _, err := f.Write(chunk[:1]); err != nil {
			break
		}
	}
	if _, err := Append(context.Background(), filepath.Join(dir, "relay"), bigLine("probe", 0)); !NoSpace(err) {
		t.Fatalf("the disk is not full: Append: %v", err)
	}
	return func() { os.Remove(path) }
}

// On a real full disk, while a desktop is connected: a hook's delivery goes
// to the desktop live (Seq 0) instead of being lost, nothing torn stays in
// the spool, the acks made while full are persisted once space returns,
// and a relay started after that replays nothing.
func TestFullDiskForReal(t *testing.T) {
	dir := filepath.Join(mountTmpfs(t, 512<<10), "relay")
	if err := Create(dir); err != nil {
		t.Fatal(err)
	}
	h := startRelay(t, dir)
	seq, poked, err := Hand(context.Background(), dir, line("a", 0, false))
	if err != nil || !poked || seq == 0 {
		t.Fatalf("Hand with space: %d %v %v", seq, poked, err)
	}
	if e := h.next(); e.Seq != seq {
		t.Fatalf("streamed %+v", e.Delivery)
	}
	sizeBefore := spoolBytes(t, dir)
	free := fill(t, filepath.Dir(dir)) // its probe tries to append too
	live, poked, err := Hand(context.Background(), dir, bigLine("a", 1))
	if err != nil || !poked || live != 0 {
		t.Fatalf("Hand on a full disk: seq %d, poked %v, %v; want taken live", live, poked, err)
	}
	if e := h.next(); e.Seq != 0 || e.Payload != "1" {
		t.Fatalf("the live delivery came as %+v", e.Delivery)
	}
	if got := spoolBytes(t, dir); got != sizeBefore {
		t.Errorf("the spool went from %d to %d bytes on a full disk: a torn line stays", sizeBefore, got)
	}
	h.control(Control{Ack: seq})
	eventually(t, "the relay says the ack is not persisted", func() bool {
		return strings.Contains(h.errs.String(), "retried until it is persisted")
	})
	if got := readAcked(dir); got == seq {
		t.Fatalf("acked on a full disk?")
	}
	free()
	deadline := time.Now().Add(minRetry + 2*time.Second)
	for readAcked(dir) != seq && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := readAcked(dir); got != seq {
		t.Fatalf("acked %d once there is space, want %d; stderr:\n%s", got, seq, h.errs)
	}
	rec, err := ReadFull(dir)
	if err != nil || rec == nil || rec.AcksLate != 1 || rec.Live != 1 {
		t.Errorf("relay/full: %+v, %v; want one ack late, one delivery live", rec, err)
	}
	h.in.Close()
	<-h.done
	h.done <- nil
	startRelay(t, dir).quiet()
}

// bigLine is a delivery longer than a page: on a full tmpfs, appending it
// needs a page that is not there (a short one could fit the segment's last).
func bigLine(session string, n int) []byte {
	b, _ := json.Marshal(Delivery{Time: 1, Surface: Pulse, Session: session, Event: "text", Payload: strconv.Itoa(n),
		Body: json.RawMessage(`{"pad":"` + strings.Repeat("x", 8<<10) + `"}`)})
	return b
}

func spoolBytes(t *testing.T, dir string) (n int64) {
	t.Helper()
	segs, _ := segments(filepath.Join(dir, spoolDir))
	for _, s := range segs {
		fi, err := os.Stat(segmentPath(filepath.Join(dir, spoolDir), s))
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// carried records what a desktop carried out.
type carried struct {
	mu   sync.Mutex
	seen []string
}

func (c *carried) surface(_ string, d Delivery) (Carry, error) {
	return Carry{Request: recordReq{c, d.Payload}}, nil
}

func (c *carried) list() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.seen, ",")
}

type recordReq struct {
	c *carried
	p string
}

func (r recordReq) Describe() string { return r.p }
func (r recordReq) Summary() string  { return r.p }
func (r recordReq) Do(context.Context) (transport.Reply, error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.seen = append(r.c.seen, r.p)
	return transport.Reply{}, nil
}

// End to end, the scenario of issue 42: the relay's disk is full while a
// desktop carries out its backlog (the acks fail), space returns, and then
// hookwire remote is restarted (a new process: nothing remembers what it
// carried out). The new one must not carry those deliveries out again.
// The relay is this test binary (TestHelperRelay), over a pipe, as ssh
// would run it.
func TestRestartAfterFullDiskReplaysNothing(t *testing.T) {
	dir := filepath.Join(mountTmpfs(t, 512<<10), "relay")
	if err := Create(dir); err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i := range 3 {
		last = mustAppend(t, dir, line("s"+strconv.Itoa(i), i, false))
	}
	spoolID(dir) // made by the first relay, before the disk filled
	free := fill(t, filepath.Dir(dir))
	host := Host{Name: "box", Argv: []string{os.Args[0], "-test.run=^TestHelperRelay$"}}
	t.Setenv("RELAY_HELPER_RELAY", dir)
	got := &carried{}
	stderr := &syncBuffer{}
	// run runs a desktop (a hookwire remote process) until done says so.
	run := func(done func() bool) {
		t.Helper()
		ctx, stop := context.WithCancel(context.Background())
		ended := make(chan struct{})
		d := &Desktop{Surfaces: map[string]Surface{Pulse: got.surface}, Stderr: stderr, Backoff: time.Hour}
		go func() { d.Run(ctx, []Host{host}); close(ended) }()
		deadline := time.Now().Add(minRetry + 5*time.Second)
		for !done() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		stop()
		<-ended
	}
	freed := false
	run(func() bool {
		if !freed && got.list() == "0,1,2" && strings.Contains(stderr.String(), "retried until it is persisted") {
			if readAcked(dir) == last {
				t.Fatal("the ack was persisted on a full disk?")
			}
			// Space returns while the desktop stays connected: the relay
			// persists the acks by itself.
			free()
			freed = true
		}
		return freed && readAcked(dir) == last
	})
	if got.list() != "0,1,2" || readAcked(dir) != last {
		t.Fatalf("carried %q (want 0,1,2), acked %d (want %d); stderr:\n%s", got.list(), readAcked(dir), last, stderr)
	}
	// hookwire remote restarted: a new desktop, with no memory.
	again := &carried{}
	got = again
	connected := strings.Count(stderr.String(), "connected to the relay")
	run(func() bool { return strings.Count(stderr.String(), "connected to the relay") > connected })
	time.Sleep(200 * time.Millisecond)
	if again.list() != "" {
		t.Errorf("after the restart the desktop carried out %q again; stderr:\n%s", again.list(), stderr)
	}
}

// TestHelperRelay is `hookwire relay` for TestRestartAfterFullDiskReplaysNothing.
func TestHelperRelay(t *testing.T) {
	dir := os.Getenv("RELAY_HELPER_RELAY")
	if dir == "" {
		t.Skip("a helper process of TestRestartAfterFullDiskReplaysNothing")
	}
	err := Relay{Dir: dir, In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Version: "test", Host: "box"}.Run(context.Background())
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
