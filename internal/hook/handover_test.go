//go:build unix

package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

// crossing is a request whose target is present or not, counting the times
// it was done here.
type crossing struct {
	absent bool
	ask    bool
	done   *int
}

func (c crossing) Describe() string { return "LOCAL" }
func (c crossing) Summary() string  { return "local" }
func (c crossing) Do(context.Context) (transport.Reply, error) {
	*c.done++
	return transport.Reply{Body: []byte("local")}, nil
}
func (c crossing) Absent() bool { return c.absent }
func (c crossing) Crossing() transport.Crossing {
	return transport.Crossing{Surface: remote.Coucou, Name: "PermissionRequest", Session: "s1",
		Body: []byte(`{"hook_event_name":"PermissionRequest"}`), Ask: c.ask}
}

// withRelay makes dir this process's relay directory ("" none) for a test.
func withRelay(t testing.TB, dir string) {
	old := relayDir
	t.Cleanup(func() { relayDir = old })
	relayDir = func() (string, error) { return dir, nil }
}

func relayFixture(t testing.TB) string {
	dir := filepath.Join(t.TempDir(), "relay")
	if err := remote.Create(dir); err != nil {
		t.Fatal(err)
	}
	withRelay(t, dir)
	return dir
}

func testInvocation(stdout io.Writer) *Invocation {
	inv := newInvocation(&Binary{Name: "t"}, nil, stdout, io.Discard)
	inv.watchdog.Stop()
	return inv
}

func TestSendHandsOverOnlyWhatIsAbsent(t *testing.T) {
	dir := relayFixture(t)
	n := 0
	inv := testInvocation(io.Discard)
	if reply, err := inv.Send(crossing{done: &n}); err != nil || string(reply.Body) != "local" || n != 1 {
		t.Fatalf("a present target: %q, %v, done %d times", reply.Body, err, n)
	}
	if _, err := inv.Send(crossing{absent: true, done: &n}); err != nil || n != 1 {
		t.Fatalf("an absent target: %v, done here %d times", err, n)
	}
	data, err := os.ReadFile(filepath.Join(dir, "spool", "0000000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var d remote.Delivery
	if err := json.Unmarshal(data, &d); err != nil || d.Surface != remote.Coucou || d.Session != "s1" || d.Time == 0 || d.Ask != 0 {
		t.Errorf("spooled %s (%v)", data, err)
	}
	if got := inv.rec.Sent[1]; got.To != "relay coucou PermissionRequest" || !strings.HasPrefix(got.Reply, "spooled") {
		t.Errorf("logged %+v", got)
	}
	// Without a relay, an absent target is tried here, as always.
	withRelay(t, "")
	inv.Send(crossing{absent: true, done: &n})
	if n != 2 {
		t.Errorf("without a relay: done here %d times, want 2", n)
	}
}

func TestSendHandOverDryRun(t *testing.T) {
	dir := relayFixture(t)
	var out bytes.Buffer
	inv := testInvocation(&out)
	inv.dryRun = true
	n := 0
	inv.Send(crossing{absent: true, done: &n})
	want := "relay " + dir + `: {"t":`
	if !strings.HasPrefix(out.String(), want) || !strings.HasSuffix(out.String(), `"surface":"coucou","session":"s1","body":{"hook_event_name":"PermissionRequest"}}`+"\n") {
		t.Errorf("dry run printed %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "spool", "0000000001.jsonl")); err == nil || n != 0 {
		t.Errorf("a dry run spooled or delivered (%d)", n)
	}
}

// An approval asks the relay with the hook's remaining budget and returns
// the desktop's answer as the reply.
func TestSendAsksTheRelay(t *testing.T) {
	dir := relayFixture(t)
	ln, err := net.Listen("unix", remote.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	asked := make(chan remote.Delivery, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadBytes('\n')
		var d remote.Delivery
		json.Unmarshal(line, &d)
		asked <- d
		c.Write([]byte("allow\n"))
	}()
	inv := testInvocation(io.Discard)
	n := 0
	reply, err := inv.Send(crossing{absent: true, ask: true, done: &n})
	if err != nil || string(reply.Body) != "allow" {
		t.Fatalf("Send = %q, %v", reply.Body, err)
	}
	d := <-asked
	if d.Ask == 0 || d.WithinMS < 2000 || d.WithinMS > Budget.Milliseconds() {
		t.Errorf("asked %+v: want an ask id and the hook's remaining budget", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "spool", "0000000001.jsonl")); err == nil {
		t.Error("an approval was spooled")
	}
}

func TestSendAskWithoutDesktop(t *testing.T) {
	relayFixture(t)
	inv := testInvocation(io.Discard)
	start := time.Now()
	n := 0
	_, err := inv.Send(crossing{absent: true, ask: true, done: &n})
	if !errors.Is(err, remote.ErrNoDesktop) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("Send = %v after %v: want no desktop, at once", err, time.Since(start))
	}
}

// The hand-over's cost in the hook: the spool's append (lock, one write)
// and the poke, with no relay listening.
func BenchmarkSendHandOver(b *testing.B) {
	relayFixture(b)
	inv := testInvocation(io.Discard)
	n := 0
	for b.Loop() {
		inv.rec.Sent = inv.rec.Sent[:0]
		if _, err := inv.Send(crossing{absent: true, done: &n}); err != nil {
			b.Fatal(err)
		}
	}
}

// What the relay costs a hook that has none: the cached lookup. The first
// call's lstat is BenchmarkRelayLookup's.
func BenchmarkSendNoRelay(b *testing.B) {
	withRelay(b, "")
	inv := testInvocation(io.Discard)
	n := 0
	for b.Loop() {
		inv.rec.Sent = inv.rec.Sent[:0]
		inv.Send(crossing{absent: true, done: &n})
	}
}

// BenchmarkRelayLookup is the one lstat a hook pays, once, on a machine
// without a relay directory.
func BenchmarkRelayLookup(b *testing.B) {
	dir := remote.Dir(func(string) string { return "" })
	b.Setenv("HOME", b.TempDir())
	for b.Loop() {
		dir = remote.Dir(os.Getenv)
		remote.SetUp(dir)
	}
	_ = dir
}
