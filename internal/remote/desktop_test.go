package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
)

func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"devbox":                             "devbox",
		"DevBox":                             "devbox",
		"me@devbox":                          "devbox",
		"dev.example.com":                    "dev-example-com",
		"gpu_box--2":                         "gpu-box-2",
		"-x-":                                "x",
		"a-very-long-host-name-that-goes-on": "a-very-long-host-name-th",
		"éé":                                 "",
		"box:2222":                           "box",
		"":                                   "",
	} {
		if got := HostName(in); got != want {
			t.Errorf("HostName(%q) = %q, want %q", in, got, want)
		}
		if got := HostName(in); len(got) > MaxName || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			t.Errorf("HostName(%q) = %q: not [a-z0-9-]{0,%d}", in, got, MaxName)
		}
	}
}

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 300)
	in := "short\n" + long + "\n" + "after\n" + strings.Repeat("y", 100) + "\n" + "tail without newline"
	r := bufio.NewReaderSize(strings.NewReader(in), 16) // lines span many buffers
	var got []string
	for {
		line, err := readLine(r, 200)
		if errors.Is(err, errTooLong) {
			got = append(got, "<too long>")
			continue
		}
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		got = append(got, string(line))
	}
	want := []string{"short", "<too long>", "after", strings.Repeat("y", 100)}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// blocking is a request that waits until released.
type blocking struct{ release chan struct{} }

func (b blocking) Describe() string { return "wait" }
func (b blocking) Summary() string  { return "wait" }
func (b blocking) Do(ctx context.Context) (transport.Reply, error) {
	select {
	case <-b.release:
		return transport.Reply{Body: []byte("allow\n")}, nil
	case <-ctx.Done():
		return transport.Reply{}, ctx.Err()
	}
}

// At most MaxAsks approvals of a host wait at once; the next is answered
// with nothing at once, and the waiting ones are answered when released.
func TestAsksBounded(t *testing.T) {
	release := make(chan struct{})
	d := &Desktop{Surfaces: map[string]Surface{Coucou: func(string, Delivery) (Carry, error) {
		return Carry{Request: blocking{release}, Within: 10 * time.Second}, nil
	}}, Stderr: io.Discard}
	pr, pw := io.Pipe()
	c := &conn{d: d, host: Host{Name: "h"}, ctx: context.Background(), askCtx: context.Background(), in: pw, asks: make(chan struct{}, MaxAsks), helloed: true, done: &progress{}}
	lines := make(chan string, 100)
	go func() {
		s := bufio.NewScanner(pr)
		for s.Scan() {
			lines <- s.Text()
		}
	}()
	for i := 1; i <= MaxAsks+1; i++ {
		c.ask(Delivery{Ask: uint64(i), WithinMS: 10000, Surface: Coucou})
	}
	if got := <-lines; got != `{"answer":9}` {
		t.Fatalf("the approval past the bound: %s, want an empty answer at once", got)
	}
	close(release)
	for range MaxAsks {
		if got := <-lines; !strings.HasSuffix(got, `,"reply":"allow"}`) {
			t.Errorf("a waiting approval: %s", got)
		}
	}
}

// A delivery carried out just before a connection dropped, whose ack was
// lost with it, comes again in the relay's replay: it is not carried out
// twice. Another spool (a relay directory made again) starts over, and a
// relay that names none is never skipped.
func TestProgressAgain(t *testing.T) {
	var p progress
	p.from("a1")
	p.carried = 14
	for _, c := range []struct {
		seq  uint64
		want bool
	}{{2, true}, {14, true}, {15, false}} {
		if got := p.again(c.seq); got != c.want {
			t.Errorf("spool a1, carried 14: again(%d) = %v, want %v", c.seq, got, c.want)
		}
	}
	p.from("a1")
	if !p.again(14) {
		t.Error("the same spool again: its progress was lost")
	}
	p.from("b2")
	if p.again(2) {
		t.Error("another spool: skipped what it never carried out")
	}
	p.from("")
	p.carried = 14
	if p.again(2) {
		t.Error("a relay that names no spool: skipped")
	}
}

// countingRequest counts the deliveries carried out, and blocks each until
// released.
type countingRequest struct {
	blocking
	n *atomic.Int32
}

func (r countingRequest) Do(ctx context.Context) (transport.Reply, error) {
	r.n.Add(1)
	return r.blocking.Do(ctx)
}

// A stop (SIGINT) that comes while a delivery is carried out acks it before
// the relay's stdin closes: the next `hookwire remote`, a new process that
// knows nothing of this one's progress, is not replayed what the surface
// already showed. What the relay streams after the stop is not carried out:
// it stays in the spool for the next connection.
func TestStopAcksWhatWasCarried(t *testing.T) {
	release := make(chan struct{})
	var carried atomic.Int32
	d := &Desktop{Surfaces: map[string]Surface{Coucou: func(string, Delivery) (Carry, error) {
		return Carry{Request: countingRequest{blocking{release}, &carried}, Within: 10 * time.Second}, nil
	}}, Stderr: io.Discard}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conn{d: d, host: Host{Name: "h"}, ctx: context.Background(), askCtx: context.Background(), in: inW, asks: make(chan struct{}, MaxAsks), done: &progress{}}
	controls := make(chan string, 10)
	go func() {
		defer close(controls)
		s := bufio.NewScanner(inR)
		for s.Scan() {
			controls <- s.Text()
		}
	}()
	served := make(chan error, 1)
	go func() { served <- c.serve(outR) }()
	fmt.Fprintf(outW, `{"hello":{"v":%d,"spool":"s1"}}`+"\n", Version)
	fmt.Fprintln(outW, `{"seq":7,"surface":"`+Coucou+`"}`)
	for carried.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	stopped := make(chan struct{})
	go func() { c.stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("the stop closed the relay's stdin while a delivery was carried out")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	<-stopped
	var got []string
	for l := range controls {
		got = append(got, l)
	}
	if strings.Join(got, "|") != `{"ack":7}` {
		t.Errorf("the relay was told %q before its stdin closed, want the carried delivery's ack", got)
	}
	fmt.Fprintln(outW, `{"seq":8,"surface":"`+Coucou+`"}`)
	outW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if n := carried.Load(); n != 1 {
		t.Errorf("%d deliveries carried out, want 1: the one read after the stop is the next connection's", n)
	}
}
