package httpsend

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit/afunix"
	"github.com/hookwire/hookwire/internal/testkit/leakcheck"
	"github.com/hookwire/hookwire/internal/transport"
)

// within runs f with a deadline of d and fails if f overruns it noticeably.
func within(t *testing.T, d time.Duration, f func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	f(ctx)
	if took := time.Since(start); took > d+300*time.Millisecond {
		t.Errorf("took %v with a %v deadline", took, d)
	}
}

func TestHTTP(t *testing.T) {
	leakcheck.Check(t)
	var seen *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, body = r, must(io.ReadAll(r.Body))
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	h := Request{URL: srv.URL + "/event/normalized", Header: Header{"Content-Type": {"application/json"}}, Body: []byte(`{"x":1}`)}
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
	r, err := Request{URL: srv.URL + "/x"}.Do(context.Background())
	if err != nil || r.Status != 302 || hits != 1 {
		t.Errorf("status %d, hits %d, err %v", r.Status, hits, err)
	}
}

func TestHTTPNotLoopback(t *testing.T) {
	for _, u := range []string{"http://example.com/x", "http://10.0.0.1:4000/x", "http://[2001:db8::1]/x", "http://localhost.evil.com/"} {
		_, err := Request{URL: u}.Do(context.Background())
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
	leakcheck.Check(t)
	for name, serve := range map[string]func(c net.Conn, quit chan struct{}){
		"hang":   func(c net.Conn, quit chan struct{}) { bufio.NewReader(c).ReadString('\n'); <-quit },
		"noread": func(c net.Conn, quit chan struct{}) { <-quit },
		"garbage": func(c net.Conn, _ chan struct{}) {
			bufio.NewReader(c).ReadString('\n')
			io.WriteString(c, "\x00\xffnot http\r\n\r\n")
		},
		"slowbody": slowBody,
	} {
		t.Run(name, func(t *testing.T) {
			addr := rawServer(t, serve)
			within(t, 400*time.Millisecond, func(ctx context.Context) {
				_, err := Request{URL: "http://" + addr + "/", Body: []byte("{}")}.Do(ctx)
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
	leakcheck.Check(t)
	afunix.Need(t)
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
	h := Request{URL: "http://localhost/event", Socket: path, Header: Header{"Authorization": {"Bearer s3cret"}}, Secret: []string{"authorization"}}
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

// A sink served by another user gets not a byte: not the token, not the
// prompt (VPet's socket at a path someone else took first).
func TestHTTPOverUnixSocketOtherUser(t *testing.T) {
	afunix.Need(t)
	path := filepath.Join(t.TempDir(), "notify.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, c)
		got <- int(n)
	}()
	saved := transport.PeerUID
	defer func() { transport.PeerUID = saved }()
	transport.PeerUID = func(net.Conn) (int, error) { return os.Getuid() + 1, nil }
	h := Request{URL: "http://localhost/event", Socket: path, Header: Header{"Authorization": {"Bearer s3cret"}}, Body: []byte(`{"prompt":"p"}`)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := h.Do(ctx); !errors.Is(err, transport.ErrOtherUser) {
		t.Errorf("err %v, want ErrOtherUser", err)
	}
	ln.Close()
	if n := <-got; n > 0 {
		t.Errorf("the other user's sink got %d bytes", n)
	}
}

// A password in the URL (TRAILBOSS_URL=http://user:secret@…) is printed by
// neither a dry run nor the log.
func TestHTTPDescribeHidesThePassword(t *testing.T) {
	h := Request{URL: "http://user:SECRETpw@127.0.0.1:4000/api/sessions", Body: []byte("{}")}
	for _, s := range []string{h.Describe(), h.Summary()} {
		if strings.Contains(s, "SECRET") || !strings.Contains(s, "127.0.0.1:4000/api/sessions") {
			t.Errorf("%q", s)
		}
	}
}

// A negative MaxReply returns at the status line: a body that trickles in
// (one byte per 100 ms, 10 s in all) would otherwise run into the deadline.
func TestHTTPBodyNotRead(t *testing.T) {
	leakcheck.Check(t)
	addr := rawServer(t, slowBody)
	within(t, 2*time.Second, func(ctx context.Context) {
		r, err := Request{URL: "http://" + addr + "/", Body: []byte("{}"), MaxReply: -1}.Do(ctx)
		if err != nil || r.Status != 200 || r.Body != nil {
			t.Errorf("reply %d %q, err %v", r.Status, r.Body, err)
		}
	})
}

// rawServer serves each TCP connection on loopback with serve, which stops
// when quit closes at the end of the test; it returns the address.
func rawServer(t *testing.T, serve func(c net.Conn, quit chan struct{})) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c, quit) }()
		}
	}()
	return ln.Addr().String()
}

// The client speaks HTTP/1.1 itself, not through net/http: what it sends is
// byte for byte what net/http's client sent for the same request (the
// golden tests record those bytes), and it reads what daemons answer.
func TestHTTPBytesAsNetHTTP(t *testing.T) {
	leakcheck.Check(t)
	got := make(chan []byte, 1)
	addr := rawServer(t, func(c net.Conn, _ chan struct{}) {
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		var b strings.Builder
		req.Write(&b) // normalized, so that both clients' requests compare
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		got <- []byte(b.String())
	})
	for _, h := range []Request{
		{URL: "http://" + addr + "/event/normalized?x=1", Header: Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer a\tb"}}, Body: []byte(`{"x":1}`)},
		{Method: "GET", URL: "http://" + addr + "/status"},
		{URL: "http://" + addr, Header: Header{"User-Agent": {"other"}}},
	} {
		// What net/http sends, configured as the client used to be.
		tr := &http.Transport{DisableKeepAlives: true, DisableCompression: true}
		req, _ := http.NewRequest(h.method(), h.URL, strings.NewReader(string(h.Body)))
		if len(h.Body) == 0 {
			req.Body, req.ContentLength = http.NoBody, 0
		}
		for k, v := range h.Header {
			req.Header[k] = v
		}
		if req.Header.Get("User-Agent") == "" {
			req.Header.Set("User-Agent", UserAgent)
		}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := <-got
		r, err := h.Do(context.Background())
		if err != nil || r.Status != 200 || string(r.Body) != "ok" {
			t.Errorf("%s: reply %d %q, err %v", h.URL, r.Status, r.Body, err)
		}
		if b := <-got; string(b) != string(want) {
			t.Errorf("%s %s: sent\n%s\nnet/http sent\n%s", h.method(), h.URL, b, want)
		}
		// And the exact bytes, in the order the goldens record.
		if w := string(must(h.wire(must(url.Parse(h.URL))))); h.method() == "POST" && len(h.Body) > 0 &&
			!strings.HasPrefix(w, "POST /event/normalized?x=1 HTTP/1.1\r\nHost: "+addr+"\r\nUser-Agent: hookwire\r\nContent-Length: 7\r\nAuthorization: Bearer a\tb\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n") {
			t.Errorf("wire:\n%q", w)
		}
	}
}

func TestHTTPAnswers(t *testing.T) {
	leakcheck.Check(t)
	for name, tc := range map[string]struct {
		answer string
		status int
		body   string
		err    string
	}{
		"length":   {answer: "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"ok\":true}trailing", status: 200, body: `{"ok":true}`},
		"chunked":  {answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"ok\r\n7;x=y\r\n\":true}\r\n0\r\n\r\n", status: 200, body: `{"ok":true}`},
		"to EOF":   {answer: "HTTP/1.0 500 Internal Server Error\r\n\r\n{\"error\":1}", status: 500, body: `{"error":1}`},
		"continue": {answer: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", status: 201},
		"no body":  {answer: "HTTP/1.1 204 No Content\r\n\r\n", status: 204},
		"short":    {answer: "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"ok\"", status: 200, body: `{"ok"`, err: "unexpected EOF"},
		"cut":      {answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\nabc", status: 200, body: "abc", err: "unexpected EOF"},
		"garbage":  {answer: "SSH-2.0-OpenSSH_9.6\r\n", err: "malformed HTTP response"},
		"huge":     {answer: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("x", 20<<10) + "\r\n\r\n", err: "response header too long"},
	} {
		t.Run(name, func(t *testing.T) {
			addr := rawServer(t, func(c net.Conn, _ chan struct{}) {
				http.ReadRequest(bufio.NewReader(c))
				io.WriteString(c, tc.answer)
			})
			r, err := Request{URL: "http://" + addr + "/", Body: []byte("{}")}.Do(context.Background())
			if r.Status != tc.status || string(r.Body) != tc.body || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("reply %d %q, err %v; want %d %q, err %q", r.Status, r.Body, err, tc.status, tc.body, tc.err)
			}
		})
	}
	// A header that would not stay on its line is refused, as net/http does.
	if _, err := (Request{URL: "http://127.0.0.1:1/", Header: Header{"Authorization": {"Bearer a\r\nX-Evil: 1"}}}).Do(context.Background()); err == nil || !strings.Contains(err.Error(), "invalid header field value") {
		t.Errorf("a newline in a header: err %v", err)
	}
	if _, err := (Request{URL: "https://127.0.0.1:1/"}).Do(context.Background()); !errors.Is(err, ErrScheme) {
		t.Errorf("https: err %v", err)
	}
}
