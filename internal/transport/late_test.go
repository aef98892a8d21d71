//go:build unix

package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// A request whose server took the line and is slow to answer is handed over
// with its connection: the courier reads the answer on the same connection,
// and the server gets the line once.
func TestHandOverWritten(t *testing.T) {
	var conns, lines atomic.Int32
	answer := make(chan struct{})
	path := listenUnix(t, func(c net.Conn) {
		conns.Add(1)
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err == nil {
			lines.Add(1)
		}
		<-answer // slow: answers only once told
		io.WriteString(c, "ok: dispatched 1\n")
	})
	req := SocketLine{Path: path, Line: []byte("event"), ReadReply: true}
	late := &Late{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rctx, end := late.Begin(ctx)
	done := make(chan error)
	go func() {
		_, err := req.Do(rctx)
		end()
		done <- err
	}()
	for lines.Load() == 0 {
		time.Sleep(time.Millisecond) // written, waiting for the answer
	}
	late.HandOver()
	if err := <-done; !errors.Is(err, ErrHandedOver) {
		t.Fatalf("Do after the hand-over: %v, want ErrHandedOver", err)
	}
	held := late.Held()
	if len(held) != 1 || held[0].Conn == nil || len(held[0].Rest) != 0 {
		t.Fatalf("held %+v, want the connection, nothing left to write", held)
	}
	items, files, err := Encode(held, nil)
	if err != nil || len(files) != 1 || items[0].Conn != 0 || items[0].Kind != "socket" {
		t.Fatalf("Encode: %+v, %d files, %v", items, len(files), err)
	}
	close(answer)
	_, reply, err := Carry(ctx, items[0], files)
	if err != nil || string(reply.Body) != "ok: dispatched 1" {
		t.Errorf("the courier's reply: %q, %v; want the server's answer", reply.Body, err)
	}
	if conns.Load() != 1 || lines.Load() != 1 {
		t.Errorf("the server saw %d connection(s), %d line(s); want one of each", conns.Load(), lines.Load())
	}
}

// A request that had not started when its surface was handed over goes to
// the courier whole, and nothing reaches the server before the courier
// does it.
func TestHandOverQueued(t *testing.T) {
	got := make(chan string, 2)
	path := listenUnix(t, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- line
		io.WriteString(c, "{\"ok\":true}\n")
	})
	late := &Late{}
	late.HandOver()
	ctx, end := late.Begin(context.Background())
	defer end()
	req := SocketLine{Path: path, Line: []byte(`{"n":2}`), ReadReply: true}
	if _, err := req.Do(ctx); !errors.Is(err, ErrHandedOver) {
		t.Fatalf("Do: %v, want ErrHandedOver", err)
	}
	select {
	case l := <-got:
		t.Fatalf("the server got %q before the courier sent it", l)
	case <-time.After(50 * time.Millisecond):
	}
	held := late.Held()
	items, files, err := Encode(held, nil)
	if err != nil || len(items) != 1 || items[0].Conn != -1 || len(files) != 0 {
		t.Fatalf("Encode: %+v, %v", items, err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, reply, err := Carry(cctx, items[0], nil); err != nil || string(reply.Body) != `{"ok":true}` {
		t.Errorf("Carry: %q, %v", reply.Body, err)
	}
	if l := <-got; l != "{\"n\":2}\n" {
		t.Errorf("the server got %q", l)
	}
}

// A request that completes is no hand-over's: a hand-over after it changes
// nothing, and a real failure stays one.
func TestHandOverAfterDone(t *testing.T) {
	path := listenUnix(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "ok\n")
	})
	late := &Late{}
	ctx, end := late.Begin(context.Background())
	reply, err := SocketLine{Path: path, Line: []byte("x"), ReadReply: true}.Do(ctx)
	end()
	late.HandOver()
	if err != nil || string(reply.Body) != "ok" || len(late.Held()) != 0 {
		t.Errorf("a request done before the hand-over: %q, %v, held %d", reply.Body, err, len(late.Held()))
	}
	late = &Late{}
	ctx, end = late.Begin(context.Background())
	defer end()
	_, err = SocketLine{Path: path + ".none", Line: []byte("x")}.Do(ctx)
	if err == nil || errors.Is(err, ErrHandedOver) || len(late.Held()) != 0 {
		t.Errorf("a refused connection: %v (held %d), want the failure itself", err, len(late.Held()))
	}
}

// A command is never cut short by a hand-over: it may have done its work.
func TestHandOverCommandUninterrupted(t *testing.T) {
	late := &Late{}
	ctx, end := late.Begin(context.Background())
	defer end()
	marker := t.TempDir() + "/ran"
	done := make(chan error)
	go func() {
		_, err := Command{Argv: []string{"sh", "-c", "sleep 0.2; touch " + marker}}.Do(ctx)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	late.HandOver()
	if err := <-done; err != nil {
		t.Fatalf("the command: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the command was cut short: %v", err)
	}
	if len(late.Held()) != 0 {
		t.Error("a command that ran was handed over too")
	}
}
