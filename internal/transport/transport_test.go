//go:build unix

package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit/leakcheck"
)

// within runs f with a deadline of d and fails if f overruns it noticeably.
func within(t *testing.T, d time.Duration, f func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	f(ctx)
	if took := time.Since(start); took > d+waitDelay+300*time.Millisecond {
		t.Errorf("took %v with a %v deadline", took, d)
	}
}

func TestCommandOK(t *testing.T) {
	within(t, 3*time.Second, func(ctx context.Context) {
		r, err := Command{Argv: []string{"/bin/sh", "-c", `echo "ok: dispatched 1"; echo noise >&2`}}.Do(ctx)
		if err != nil || r.Status != 0 || string(r.Body) != "ok: dispatched 1\nnoise\n" {
			t.Errorf("reply %+v %q, err %v", r, r.Body, err)
		}
	})
}

func TestCommandFails(t *testing.T) {
	within(t, 3*time.Second, func(ctx context.Context) {
		_, err := Command{Argv: []string{"/bin/sh", "-c", "echo 'error: noctalia is not running'; exit 1"}}.Do(ctx)
		if err == nil || err.Error() != "exit status 1: error: noctalia is not running" {
			t.Errorf("err %v", err)
		}
		_, err = Command{Argv: []string{filepath.Join(t.TempDir(), "missing")}}.Do(ctx)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("missing program: err %v", err)
		}
	})
}

func TestCommandOutputBounded(t *testing.T) {
	within(t, 3*time.Second, func(ctx context.Context) {
		r, err := Command{Argv: []string{"/bin/sh", "-c", "head -c 1000000 /dev/zero"}}.Do(ctx)
		if err != nil || len(r.Body) != 1<<10 {
			t.Errorf("kept %d bytes, err %v", len(r.Body), err)
		}
	})
}

// A target that hangs, and forks a helper that hangs and holds our output
// pipe: both are killed at the deadline, and Do returns promptly.
func TestCommandHangKillsTheGroup(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	within(t, 500*time.Millisecond, func(ctx context.Context) {
		_, err := Command{Argv: []string{"/bin/sh", "-c", "sleep 60 & echo $$ $! > " + pids + "; wait"}}.Do(ctx)
		if !errors.Is(err, ErrDeadline) {
			t.Errorf("err %v, want ErrDeadline", err)
		}
	})
	b, _ := os.ReadFile(pids)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(2 * time.Second)
		for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d survived", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func isZombie(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func TestCommandDescribe(t *testing.T) {
	c := Command{Argv: []string{"noctalia", "msg", "plugin", "x", "all", "idle"}}
	if c.Describe() != "noctalia msg plugin x all idle" || c.Summary() != "exec noctalia msg plugin x all idle" {
		t.Errorf("%q / %q", c.Describe(), c.Summary())
	}
}

// listenUnix serves each connection with handle.
func listenUnix(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				go func() { <-done; c.Close() }()
				handle(c)
			}()
		}
	}()
	return path
}

func TestSocketLine(t *testing.T) {
	leakcheck.Check(t)
	got := make(chan string, 1)
	path := listenUnix(t, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- line
		io.WriteString(c, "{\"ok\":true}\n")
	})
	within(t, 3*time.Second, func(ctx context.Context) {
		r, err := SocketLine{Path: path, Line: []byte(`{"a":1}`), ReadReply: true}.Do(ctx)
		if err != nil || string(r.Body) != `{"ok":true}` {
			t.Errorf("reply %q, err %v", r.Body, err)
		}
	})
	if line := <-got; line != "{\"a\":1}\n" {
		t.Errorf("server got %q", line)
	}
}

func TestSocketLineNoReply(t *testing.T) {
	path := listenUnix(t, func(c net.Conn) { bufio.NewReader(c).ReadString('\n') })
	within(t, 3*time.Second, func(ctx context.Context) {
		r, err := SocketLine{Path: path, Line: []byte(`{}`), ReadReply: true}.Do(ctx)
		if err != nil || len(r.Body) != 0 {
			t.Errorf("a server closing without a reply: %q, %v", r.Body, err)
		}
	})
}

func TestSocketLineHangs(t *testing.T) {
	leakcheck.Check(t)
	hold := make(chan struct{})
	defer close(hold)
	path := listenUnix(t, func(c net.Conn) { <-hold }) // accepts, never reads
	within(t, 300*time.Millisecond, func(ctx context.Context) {
		// A line far bigger than the socket buffer blocks the write.
		_, err := SocketLine{Path: path, Line: make([]byte, 8<<20)}.Do(ctx)
		if !errors.Is(err, ErrDeadline) {
			t.Errorf("err %v", err)
		}
	})
	within(t, 300*time.Millisecond, func(ctx context.Context) {
		_, err := SocketLine{Path: path, Line: []byte("{}"), ReadReply: true}.Do(ctx)
		if !errors.Is(err, ErrDeadline) {
			t.Errorf("err %v", err)
		}
	})
}

func TestSocketLineReplyWithin(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	path := listenUnix(t, func(c net.Conn) { bufio.NewReader(c).ReadString('\n'); <-hold })
	start := time.Now()
	_, err := SocketLine{Path: path, Line: []byte("{}"), ReadReply: true, ReplyWithin: 100 * time.Millisecond}.Do(context.Background())
	if err == nil || time.Since(start) > time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestSocketLineOptionalReply(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	path := listenUnix(t, func(c net.Conn) { bufio.NewReader(c).ReadString('\n'); <-hold })
	_, err := SocketLine{Path: path, Line: []byte("{}"), ReadReply: true, ReplyWithin: 50 * time.Millisecond, ReplyOptional: true}.Do(context.Background())
	if err != nil {
		t.Errorf("an acknowledgement that does not come is not an error: %v", err)
	}
}

func TestSocketLineRefused(t *testing.T) {
	within(t, time.Second, func(ctx context.Context) {
		_, err := SocketLine{Path: filepath.Join(t.TempDir(), "none.sock"), Line: []byte("{}")}.Do(ctx)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err %v", err)
		}
	})
}

// No byte reaches a socket served by another user, whoever writes to it.
func TestSocketLineOtherUser(t *testing.T) {
	got := make(chan int, 1)
	path := listenUnix(t, func(c net.Conn) { n, _ := io.Copy(io.Discard, c); got <- int(n) })
	saved := PeerUID
	defer func() { PeerUID = saved }()
	PeerUID = func(net.Conn) (int, error) { return os.Getuid() + 1, nil }
	_, err := SocketLine{Path: path, Line: []byte("{}")}.Do(context.Background())
	if !errors.Is(err, ErrOtherUser) {
		t.Errorf("err %v, want ErrOtherUser", err)
	}
	if n := <-got; n != 0 {
		t.Errorf("the other user's server got %d bytes", n)
	}
}

func TestReadLine(t *testing.T) {
	for in, want := range map[string]string{
		"allow\n":                       "allow",
		"allow\r\nmore":                 "allow",
		"no newline":                    "no newline",
		"":                              "",
		strings.Repeat("x", 100) + "\n": strings.Repeat("x", 10),
	} {
		got, err := readLine(strings.NewReader(in), 10)
		if err != nil || string(got) != want {
			t.Errorf("readLine(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// readLine stops at the first newline however long the reply: a server that
// sends a long line and keeps the connection open is not waited on.
func TestReadLineLongLineThenOpen(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(strings.Repeat("x", 5000) + "\nmore, and the connection stays open"))
	done := make(chan []byte)
	go func() { b, _ := readLine(r, 64<<10); done <- b }()
	select {
	case b := <-done:
		if len(b) != 5000 {
			t.Errorf("got %d bytes", len(b))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readLine waited for EOF after a newline")
	}
}
