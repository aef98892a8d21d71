package testkit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// A fake is an in-process listener standing in for a target: a Unix socket
// that takes one line per connection (Coucou), or an HTTP/1.1 server on
// loopback or on a Unix socket (Trail Boss, VPet). It appends what each
// connection delivered to $WORK/NAME.got.
type fake struct {
	name string
	http bool
	ln   net.Listener
	got  string // record file

	mu      sync.Mutex
	mode    mode
	records int
	arrived chan struct{} // closed and replaced on each record
	wg      sync.WaitGroup
	quit    chan struct{}

	// respond, when set, answers HTTP requests as a modelled daemon does,
	// unless the mode sets the status or the body.
	respond func(req *http.Request, body []byte) (status int, reply string)
}

// mode is how a fake answers. The zero mode answers like a healthy target.
type mode struct {
	status  int           // HTTP status (default 200)
	body    string        // reply body or line (default {"ok":true})
	silent  bool          // socket: read the line, close without a reply
	hang    bool          // read the request, never answer
	noread  bool          // accept the connection, never read it
	garbage bool          // answer bytes that are not the protocol
	slow    bool          // HTTP: headers at once, then the body a byte per 100 ms
	delay   time.Duration // wait this long before answering
	auth    string        // HTTP: answer 401 unless "Authorization: Bearer <auth>"
	ctype   string        // HTTP: Content-Type of the answer
	headers []string      // HTTP: extra answer headers, "Name: value"
	fixed   bool          // status or body was given
}

func parseMode(words []string) (mode, error) {
	m := mode{status: 200, body: `{"ok":true}`, ctype: "application/json"}
	for _, w := range words {
		key, val, _ := strings.Cut(w, "=")
		switch key {
		case "ok":
		case "status":
			n, err := strconv.Atoi(val)
			if err != nil {
				return m, fmt.Errorf("status=%q: %v", val, err)
			}
			m.status, m.fixed = n, true
		case "body", "reply":
			m.body, m.fixed = val, true
		case "silent":
			m.silent = true
		case "hang":
			m.hang = true
		case "noread":
			m.noread = true
		case "garbage":
			m.garbage = true
		case "slowbody":
			m.slow = true
		case "delay":
			d, err := time.ParseDuration(val)
			if err != nil {
				return m, err
			}
			m.delay = d
		case "auth":
			m.auth = val
		case "ctype":
			m.ctype = val
		case "header":
			m.headers = append(m.headers, val)
		default:
			return m, fmt.Errorf("unknown mode word %q", w)
		}
	}
	return m, nil
}

var (
	fakesMu sync.Mutex
	fakes   = map[*testscript.TestScript]map[string]*fake{}
)

func lookup(ts *testscript.TestScript, name string) *fake {
	fakesMu.Lock()
	defer fakesMu.Unlock()
	f := fakes[ts][name]
	if f == nil {
		ts.Fatalf("no fake named %q", name)
	}
	return f
}

func start(ts *testscript.TestScript, name, network, addr string, isHTTP bool, words []string) *fake {
	return startWith(ts, name, network, addr, isHTTP, words, nil)
}

// startWith is start, with init run on the fake before it serves.
func startWith(ts *testscript.TestScript, name, network, addr string, isHTTP bool, words []string, init func(*fake)) *fake {
	m, err := parseMode(words)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if network == "unix" {
		os.Remove(addr)
	}
	var ln net.Listener
	if network == "pipe" {
		ln, err = listenPipe(addr)
	} else {
		ln, err = net.Listen(network, addr)
	}
	if err != nil {
		ts.Fatalf("listen: %v", err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		// After fake-stop the socket file stays, as a crashed app leaves
		// it: connecting is refused rather than finding nothing.
		ul.SetUnlinkOnClose(false)
	}
	f := &fake{name: name, http: isHTTP, ln: ln, got: ts.MkAbs(name + ".got"),
		mode: m, arrived: make(chan struct{}), quit: make(chan struct{})}
	fakesMu.Lock()
	if fakes[ts] == nil {
		fakes[ts] = map[string]*fake{}
	}
	fakes[ts][name] = f
	fakesMu.Unlock()
	ts.Defer(func() {
		f.stop()
		fakesMu.Lock()
		delete(fakes[ts], name)
		fakesMu.Unlock()
	})
	if init != nil {
		init(f)
	}
	go f.serve()
	return f
}

// stop ends the fake and waits for the connections it is serving. quit is
// closed under mu, and serve counts a connection under mu only while quit is
// open: a count is never raised beside the Wait (the race detector reports a
// WaitGroup whose first Add and Wait are not ordered, as when a hook's
// connection was still being answered at a script's end).
func (f *fake) stop() {
	f.mu.Lock()
	select {
	case <-f.quit:
		f.mu.Unlock()
		return
	default:
	}
	close(f.quit)
	f.mu.Unlock()
	f.ln.Close()
	f.wg.Wait()
}

func (f *fake) serve() {
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		select {
		case <-f.quit:
			f.mu.Unlock()
			conn.Close()
			return
		default:
		}
		m := f.mode
		f.wg.Add(1)
		f.mu.Unlock()
		go func() {
			defer f.wg.Done()
			defer conn.Close()
			// A hanging fake must still let the test end.
			go func() { <-f.quit; conn.Close() }()
			if f.http {
				f.serveHTTP(conn, m)
			} else {
				f.serveLine(conn, m)
			}
		}()
	}
}

func (f *fake) serveLine(conn net.Conn, m mode) {
	if m.noread {
		<-f.quit
		return
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if len(line) == 0 && err != nil {
		return
	}
	f.record(usPlaceholder(line))
	f.answer(m, func() {
		switch {
		case m.garbage:
			conn.Write([]byte("\x00\xffnot a reply"))
		case !m.silent:
			conn.Write([]byte(m.body + "\n"))
		}
	})
}

func (f *fake) serveHTTP(conn net.Conn, m mode) {
	if m.noread {
		<-f.quit
		return
	}
	var raw bytes.Buffer
	req, err := http.ReadRequest(bufio.NewReader(io.TeeReader(conn, &raw)))
	if err != nil {
		return
	}
	head := raw.Len() // what the bufio reader consumed so far may include body bytes
	body, _ := io.ReadAll(req.Body)
	all := raw.Bytes()
	if i := bytes.Index(all, []byte("\r\n\r\n")); i >= 0 {
		head = i + 4
	}
	rec := bytes.ReplaceAll(all[:head], []byte("\r\n"), []byte("\n"))
	rec = append(append(rec, body...), '\n')
	f.record(rec)

	f.answer(m, func() {
		if m.garbage {
			conn.Write([]byte("\x00\xffthis is not HTTP\r\n\r\n"))
			return
		}
		if f.respond != nil && !m.fixed {
			m.status, m.body = f.respond(req, body)
		}
		status, body := m.status, m.body
		if m.auth != "" && req.Header.Get("Authorization") != "Bearer "+m.auth {
			status, body = 401, `{"error":"unauthorized"}`
		}
		var h strings.Builder
		fmt.Fprintf(&h, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
		fmt.Fprintf(&h, "Content-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n", m.ctype, len(body))
		for _, x := range m.headers {
			h.WriteString(x + "\r\n")
		}
		h.WriteString("\r\n")
		conn.Write([]byte(h.String()))
		if !m.slow {
			conn.Write([]byte(body))
			return
		}
		for i := 0; i < len(body); i++ {
			select {
			case <-f.quit:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
		}
	})
}

// answer runs reply after the mode's delay, or never in hang mode.
func (f *fake) answer(m mode, reply func()) {
	if m.hang {
		<-f.quit
		return
	}
	if m.delay > 0 {
		select {
		case <-f.quit:
			return
		case <-time.After(m.delay):
		}
	}
	reply()
}

func (f *fake) record(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fh, err := os.OpenFile(f.got, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		fh.Write(b)
		fh.Close()
	}
	f.records++
	close(f.arrived)
	f.arrived = make(chan struct{})
}

// cmdFakeSock: fake-sock NAME PATH [mode...]
func cmdFakeSock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fake-sock NAME PATH [mode...]")
	}
	needUnixSockets(ts)
	start(ts, args[0], "unix", ts.MkAbs(args[1]), false, args[2:])
}

// cmdFakePipe: fake-pipe NAME [PIPE] [mode...] listens on a named pipe
// (Windows): PIPE, or Coucou's own \\.\pipe\coucou-<user SID> when it is
// "coucou"; exports NAME_PIPE.
func cmdFakePipe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fake-pipe NAME coucou|PIPE [mode...]")
	}
	pipe := args[1]
	if pipe == "coucou" {
		var err error
		if pipe, err = coucouPipe(); err != nil {
			ts.Fatalf("%v", err)
		}
	}
	start(ts, args[0], "pipe", pipe, false, args[2:])
	ts.Setenv(strings.ToUpper(strings.ReplaceAll(args[0], "-", "_"))+"_PIPE", pipe)
}

// cmdFakeHTTP: fake-http NAME [mode...]; exports NAME_URL and NAME_ADDR.
func cmdFakeHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fake-http NAME [mode...]")
	}
	f := start(ts, args[0], "tcp", "127.0.0.1:0", true, args[1:])
	env := strings.ToUpper(strings.ReplaceAll(args[0], "-", "_"))
	ts.Setenv(env+"_ADDR", f.ln.Addr().String())
	ts.Setenv(env+"_URL", "http://"+f.ln.Addr().String())
}

// cmdFakeHTTPUnix: fake-http-unix NAME PATH [mode...]
func cmdFakeHTTPUnix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fake-http-unix NAME PATH [mode...]")
	}
	needUnixSockets(ts)
	start(ts, args[0], "unix", ts.MkAbs(args[1]), true, args[2:])
}

// cmdFakeMode: fake-mode NAME [mode...] changes how later connections are answered.
func cmdFakeMode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fake-mode NAME [mode...]")
	}
	f := lookup(ts, args[0])
	m, err := parseMode(args[1:])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	f.mu.Lock()
	f.mode = m
	f.mu.Unlock()
}

// cmdFakeStop: fake-stop NAME closes the listener: later connections are
// refused (a Unix socket's file stays behind, as after a crash).
func cmdFakeStop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fake-stop NAME")
	}
	lookup(ts, args[0]).stop()
}

// cmdGot: got NAME N waits until the fake has recorded exactly N deliveries
// (! got NAME N: asserts it did not, after the same wait).
func cmdGot(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: got NAME N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("got: %v", err)
	}
	f := lookup(ts, args[0])
	deadline := time.After(5 * time.Second)
	for {
		f.mu.Lock()
		n, arrived := f.records, f.arrived
		f.mu.Unlock()
		if n >= want {
			break
		}
		select {
		case <-arrived:
			continue
		case <-deadline:
		}
		break
	}
	time.Sleep(50 * time.Millisecond) // a straggler would show up now
	f.mu.Lock()
	n := f.records
	f.mu.Unlock()
	if (n == want) == neg {
		if neg {
			ts.Fatalf("%s received %d, and should not have", f.name, n)
		}
		ts.Fatalf("%s received %d, want %d", f.name, n, want)
	}
}

// cmdDead: dead FILE asserts every pid listed in FILE has exited.
func cmdDead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dead PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			ts.Fatalf("bad pid %q", f)
		}
		if !WaitDead(pid, 2*time.Second) {
			ts.Fatalf("process %d is still running", pid)
		}
	}
}

// ListenPipe listens on a Windows named pipe as Coucou's Windows app does
// (pipe_windows.go); elsewhere it fails: named pipes are Windows's.
func ListenPipe(name string) (net.Listener, error) { return listenPipe(name) }
