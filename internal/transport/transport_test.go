package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// noLeaks fails if goroutines started by the test outlive it.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
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
	noLeaks(t)
	got := make(chan string, 1)
	path := listenUnix(t, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- line
		io.WriteString(c, "{\"ok\":true}\n")
	})
	within(t, 3*time.Second, func(ctx context.Context) {
		r, err := SocketLine{Path: path, Line: []byte(`{"a":1}`), ReadReply: true, SameUser: true}.Do(ctx)
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
	noLeaks(t)
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

func TestSocketLineRefused(t *testing.T) {
	within(t, time.Second, func(ctx context.Context) {
		_, err := SocketLine{Path: filepath.Join(t.TempDir(), "none.sock"), Line: []byte("{}")}.Do(ctx)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err %v", err)
		}
	})
}

func TestSocketLineOtherUser(t *testing.T) {
	path := listenUnix(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	saved := PeerUID
	defer func() { PeerUID = saved }()
	PeerUID = func(net.Conn) (int, error) { return os.Getuid() + 1, nil }
	_, err := SocketLine{Path: path, Line: []byte("{}"), SameUser: true}.Do(context.Background())
	if !errors.Is(err, ErrOtherUser) {
		t.Errorf("err %v, want ErrOtherUser", err)
	}
}

func TestReadLine(t *testing.T) {
	for in, want := range map[string]string{
		"allow\n":       "allow",
		"allow\r\nmore": "allow",
		"no newline":    "no newline",
		"":              "",
		strings.Repeat("x", 100) + "\n": strings.Repeat("x", 10),
	} {
		got, err := readLine(strings.NewReader(in), 10)
		if err != nil || string(got) != want {
			t.Errorf("readLine(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestHTTP(t *testing.T) {
	noLeaks(t)
	var seen *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, body = r, must(io.ReadAll(r.Body))
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	h := HTTP{URL: srv.URL + "/event/normalized", Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"x":1}`)}
	within(t, 3*time.Second, func(ctx context.Context) {
		r, err := h.Do(ctx)
		if err != nil || r.Status != 200 || string(r.Body) != `{"ok":true}` {
			t.Errorf("reply %d %q, err %v", r.Status, r.Body, err)
		}
	})
	if seen.Method != "POST" || seen.URL.Path != "/event/normalized" || string(body) != `{"x":1}` ||
		seen.Header.Get("Content-Type") != "application/json" {
		t.Errorf("server saw %s %s %q %v", seen.Method, seen.URL, body, seen.Header)
	}
	srv.CloseClientConnections()
}

func must[T any](v T, _ error) T { return v }

func TestHTTPNoRedirect(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	r, err := HTTP{URL: srv.URL + "/x"}.Do(context.Background())
	if err != nil || r.Status != 302 || hits != 1 {
		t.Errorf("status %d, hits %d, err %v", r.Status, hits, err)
	}
}

func TestHTTPNotLoopback(t *testing.T) {
	for _, u := range []string{"http://example.com/x", "http://10.0.0.1:4000/x", "http://[2001:db8::1]/x", "http://localhost.evil.com/"} {
		_, err := HTTP{URL: u}.Do(context.Background())
		if !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: err %v", u, err)
		}
	}
	for _, h := range []string{"localhost", "127.0.0.1", "127.1.2.3", "::1", "LOCALHOST"} {
		if !Loopback(h) {
			t.Errorf("%s is loopback", h)
		}
	}
}

func TestHTTPMisbehaving(t *testing.T) {
	noLeaks(t)
	for name, serve := range map[string]func(c net.Conn, quit chan struct{}){
		"hang":     func(c net.Conn, quit chan struct{}) { bufio.NewReader(c).ReadString('\n'); <-quit },
		"noread":   func(c net.Conn, quit chan struct{}) { <-quit },
		"garbage":  func(c net.Conn, _ chan struct{}) { bufio.NewReader(c).ReadString('\n'); io.WriteString(c, "\x00\xffnot http\r\n\r\n") },
		"slowbody": slowBody,
	} {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			quit := make(chan struct{})
			defer close(quit)
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() { defer c.Close(); serve(c, quit) }()
				}
			}()
			within(t, 400*time.Millisecond, func(ctx context.Context) {
				_, err := HTTP{URL: "http://" + ln.Addr().String() + "/", Body: []byte("{}")}.Do(ctx)
				if err == nil {
					t.Error("no error")
				}
			})
		})
	}
}

func slowBody(c net.Conn, quit chan struct{}) {
	http.ReadRequest(bufio.NewReader(c))
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
	for range 100 {
		select {
		case <-quit:
			return
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := c.Write([]byte("x")); err != nil {
			return
		}
	}
}

func TestHTTPOverUnixSocket(t *testing.T) {
	noLeaks(t)
	path := filepath.Join(t.TempDir(), "notify.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.Host != "localhost" {
			w.WriteHeader(401)
			return
		}
		w.WriteHeader(204)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	h := HTTP{URL: "http://localhost/event", Socket: path, Header: http.Header{"Authorization": {"Bearer s3cret"}}, Secret: []string{"authorization"}}
	r, err := h.Do(context.Background())
	if err != nil || r.Status != 204 {
		t.Errorf("status %d, err %v", r.Status, err)
	}
	if d := h.Describe(); strings.Contains(d, "s3cret") || !strings.Contains(d, "Authorization: Bearer <redacted>") ||
		!strings.HasPrefix(d, "POST http://localhost/event via unix:"+path+"\n") {
		t.Errorf("Describe:\n%s", d)
	}
	if s := h.Summary(); strings.Contains(s, "s3cret") {
		t.Errorf("Summary %q", s)
	}
}
