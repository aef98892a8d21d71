package trailboss

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
)

func TestClipJS(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"", 100, ""},
		{strings.Repeat("a", 100), 100, strings.Repeat("a", 100)},
		{strings.Repeat("a", 101), 100, strings.Repeat("a", 97) + "..."},
		{"abcdef", 5, "ab..."},
		{"abcde", 5, "abcde"},
		// é is one UTF-16 unit, as in JavaScript.
		{strings.Repeat("é", 100), 100, strings.Repeat("é", 100)},
		// 😀 is two: 50 of them are 100 units, 51 are clipped to 48 and "...".
		{strings.Repeat("😀", 50), 100, strings.Repeat("😀", 50)},
		{strings.Repeat("😀", 51), 100, strings.Repeat("😀", 48) + "..."},
		// A pair straddling the cut is dropped whole, never halved.
		{"ab😀cdef", 6, "ab..."},
		// Invalid UTF-8 is replaced, so the result is always valid.
		{"a\xffb", 10, "a\uFFFDb"},
	}
	for _, tc := range cases {
		got := clipJS(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("clipJS(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if !utf8.ValidString(got) || len(utf16.Encode([]rune(got))) > tc.n {
			t.Errorf("clipJS(%q, %d) = %q: invalid or too long", tc.in, tc.n, got)
		}
	}
}

func TestPermissionMessage(t *testing.T) {
	cases := []struct {
		tool  string
		input string
		want  string
	}{
		{"Bash", `{ "command" : "ls -la" }`, `[Bash] {"command":"ls -la"}`},
		{"Bash", ``, `[Bash] `},
		{"", `{"command":"ls"}`, `[permission request]`},
		{"Write", `{"file_path":"a<b>.go"}`, `[Write] {"file_path":"a<b>.go"}`},
		{"Bash", `{"command":"` + strings.Repeat("x", 200) + `"}`, `[Bash] {"command":"` + strings.Repeat("x", 85) + `...`},
		{"Bash", `{"broken":`, `[Bash] `}, // not JSON: no input rather than a wrong one
		{"mcp__x\nname", `{}`, `[mcp__x name] {}`},
	}
	for _, tc := range cases {
		if got := PermissionMessage(tc.tool, json.RawMessage(tc.input)); got != tc.want {
			t.Errorf("PermissionMessage(%q, %s) = %q, want %q", tc.tool, tc.input, got, tc.want)
		}
	}
}

func TestStoppedAndErrorMessages(t *testing.T) {
	if got := StoppedMessage(" \n\t"); got != NoMessage {
		t.Errorf("blank: %q", got)
	}
	if got := StoppedMessage("  Done.\n"); got != "  Done.\n" {
		t.Errorf("kept as written: %q", got)
	}
	if got := StoppedMessage(strings.Repeat("z", 1001)); got != strings.Repeat("z", 997)+"..." {
		t.Errorf("long: %d runes", utf8.RuneCountInString(got))
	}
	cases := []struct {
		ev   agent.Event
		want string
	}{
		{agent.Event{ErrorType: "rate_limit", Message: "API Error: 429\nslow down"}, "[error] rate_limit: API Error: 429 slow down"},
		{agent.Event{ErrorType: "rate_limit", Error: "Rate limited", Message: "ignored"}, "[error] rate_limit: Rate limited"},
		{agent.Event{ErrorType: "server_error", Error: "server_error"}, "[error] server_error"},
		{agent.Event{Error: "model overloaded"}, "[error] model overloaded"},
		{agent.Event{}, "[error] the turn failed"},
	}
	for _, tc := range cases {
		if got := ErrorMessage(tc.ev); got != tc.want {
			t.Errorf("ErrorMessage(%+v) = %q, want %q", tc.ev, got, tc.want)
		}
	}
}

// Each type carries exactly its fields, every string present even when
// empty, in types.ts order.
func TestEventJSON(t *testing.T) {
	e := Event{SessionID: "s", PaneID: "%1", Cwd: "", TranscriptPath: "", Reason: "stopped", Message: "<&>\u2028", Timestamp: 1764493200123}
	want := map[string]string{
		Stuck:      `{"type":"stuck","sessionId":"s","paneId":"%1","cwd":"","transcriptPath":"","reason":"stopped","message":"<&>\u2028","timestamp":1764493200123}`,
		Registered: `{"type":"registered","sessionId":"s","paneId":"%1","cwd":"","transcriptPath":"","timestamp":1764493200123}`,
		Unstuck:    `{"type":"unstuck","sessionId":"s","timestamp":1764493200123}`,
		Ended:      `{"type":"ended","sessionId":"s","timestamp":1764493200123}`,
	}
	for typ, w := range want {
		e.Type = typ
		if b := e.Encode(); string(b) != w || !json.Valid(b) {
			t.Errorf("%s: %s\nwant %s", typ, b, w)
		}
	}
}

func TestEndpoint(t *testing.T) {
	cases := []struct {
		daemonURL, url string
		remote         bool
		want, err      string
	}{
		{want: "http://127.0.0.1:4000/event/normalized"},
		{url: "http://127.0.0.1:4100/", want: "http://127.0.0.1:4100/event/normalized"},
		{url: "http://localhost:4000", want: "http://localhost:4000/event/normalized"},
		{daemonURL: "http://127.0.0.1:4000/x", url: "http://192.0.2.1", want: "http://127.0.0.1:4000/x"},
		{url: "http://192.0.2.1:4000", err: "TRAILBOSS_URL=http://192.0.2.1:4000: 192.0.2.1 is not this machine: refused (run with --allow-remote to send there)"},
		{url: "http://192.0.2.1:4000", remote: true, want: "http://192.0.2.1:4000/event/normalized"},
		{url: "http://127.0.0.1.nip.io:4000", err: "not this machine"},
		{daemonURL: "unix:///run/tb.sock", err: "TRAILBOSS_DAEMON_URL=unix:///run/tb.sock is not an http:// URL"},
		{url: "4000", err: "not an http:// URL"},
	}
	for _, tc := range cases {
		env := map[string]string{EnvDaemonURL: tc.daemonURL, EnvURL: tc.url}
		got, err := Endpoint(func(k string) string { return env[k] }, tc.remote)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %q, %v", tc, got, err)
		}
	}
}

// harness runs the binary in this process, against a modelled daemon.
type harness struct {
	t      *testing.T
	dir    string
	daemon *testkit.TrailBoss
	srv    *httptest.Server
	addr   string

	mu     sync.Mutex
	bodies []string
	// answer, when set, replaces the daemon's answers.
	answer func(w http.ResponseWriter, r *http.Request, call int)
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, dir: t.TempDir(), daemon: testkit.NewTrailBoss()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.addr = ln.Addr().String()
	ln.Close() // down until start
	t.Setenv("XDG_RUNTIME_DIR", h.dir)
	t.Setenv(EnvURL, "http://"+h.addr)
	t.Setenv(EnvDaemonURL, "")
	t.Setenv(EnvPane, "%1")
	t.Setenv(hook.EnvLog, filepath.Join(h.dir, "debug.log"))
	t.Setenv(hook.EnvDryRun, "")
	t.Cleanup(h.stop)
	return h
}

func (h *harness) start() {
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, b.String())
		answer, call := h.answer, len(h.bodies)
		h.mu.Unlock()
		if answer != nil {
			answer(w, r, call)
			return
		}
		status, reply := h.daemon.Answer(r.Method, r.URL.Path, b.Bytes())
		w.WriteHeader(status)
		w.Write([]byte(reply))
	}))
	h.srv.Listener.Close()
	h.srv.Listener = ln
	h.srv.Start()
}

func (h *harness) stop() {
	if h.srv != nil {
		h.srv.Close()
		h.srv = nil
	}
}

func (h *harness) run(payload string) {
	h.t.Helper()
	in := filepath.Join(h.dir, "stdin")
	os.WriteFile(in, []byte(payload), 0o600)
	f, err := os.Open(in)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	var stdout, stderr bytes.Buffer
	if code := hook.Run(Hook(), nil, f, &stdout, &stderr); code != 0 || stdout.Len() > 0 || stderr.Len() > 0 {
		h.t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func (h *harness) spool() []string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "hookwire", Name, spoolFile))
	return strings.Fields(string(b))
}

func (h *harness) log() string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "debug.log"))
	return string(b)
}

// The spool holds the newest 256 events; once the daemon is back they are
// replayed byte for byte, in order, before the event that found it back.
func TestSpoolBoundAndOrder(t *testing.T) {
	h := newHarness(t)
	os.MkdirAll(filepath.Join(h.dir, "hookwire", Name), 0o700)
	base := time.Now().Add(-time.Minute).UnixMilli()
	var old []string
	for i := range spoolMax {
		old = append(old, fmt.Sprintf(`{"type":"unstuck","sessionId":"old-%03d","timestamp":%d}`, i, base+int64(i)))
	}
	os.WriteFile(filepath.Join(h.dir, "hookwire", Name, spoolFile), []byte(strings.Join(old, "\n")+"\n"), 0o600)

	h.run(`{"session_id":"s1","cwd":"/a","hook_event_name":"Stop","last_assistant_message":"Done."}`)
	got := h.spool()
	if len(got) != spoolMax || got[0] != old[1] || !strings.HasPrefix(got[spoolMax-1], `{"type":"stuck","sessionId":"s1",`) {
		t.Fatalf("spool: %d events, first %s, last %s", len(got), got[0], got[len(got)-1])
	}
	if !strings.Contains(h.log(), "spool: full, dropped the 1 oldest event(s)") {
		t.Errorf("log: %s", h.log())
	}

	h.start()
	h.run(`{"session_id":"s1","cwd":"/a","hook_event_name":"UserPromptSubmit","prompt":"go"}`)
	if len(h.bodies) != spoolMax+1 {
		t.Fatalf("%d requests, want %d", len(h.bodies), spoolMax+1)
	}
	for i, b := range got {
		if h.bodies[i] != b {
			t.Fatalf("request %d: %s, want the spooled %s", i, h.bodies[i], b)
		}
	}
	if last := h.bodies[spoolMax]; !strings.HasPrefix(last, `{"type":"unstuck","sessionId":"s1",`) {
		t.Errorf("last request %s", last)
	}
	if s := h.spool(); len(s) != 0 {
		t.Errorf("spool after replay: %v", s)
	}
}

// The daemon going away in the middle of a replay: what was delivered is
// not sent again, what was not is kept, in order, with the new event last.
func TestSpoolReplayInterrupted(t *testing.T) {
	h := newHarness(t)
	h.run(`{"session_id":"s1","cwd":"/a","hook_event_name":"Stop","last_assistant_message":"One."}`)
	h.run(`{"session_id":"s2","cwd":"/a","hook_event_name":"Stop","last_assistant_message":"Two."}`)
	if n := len(h.spool()); n != 2 {
		t.Fatalf("spool: %d", n)
	}
	h.start()
	// The daemon refuses the second replayed event with a 500 (it would fail
	// again: dropped) and then goes away before the third (kept).
	h.mu.Lock()
	h.answer = func(w http.ResponseWriter, r *http.Request, call int) {
		switch call {
		case 1:
			w.Write([]byte(`{"ok":true}`))
		case 2:
			w.WriteHeader(500)
			w.Write([]byte(`{"error":"Internal server error"}`))
		default:
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
		}
	}
	h.mu.Unlock()
	h.run(`{"session_id":"s3","cwd":"/a","hook_event_name":"Stop","last_assistant_message":"Three."}`)
	got := h.spool()
	if len(got) != 1 || !strings.Contains(got[0], `"sessionId":"s3"`) {
		t.Errorf("spool: %v", got)
	}
	if !strings.Contains(h.log(), `Trail Boss refused {\"type\":\"stuck\",\"sessionId\":\"s2\"`) {
		t.Errorf("log: %s", h.log())
	}
}

// TestFindDataUnderProfile: setup finds Trail Boss by its data directory
// under the user's home, which on Windows is USERPROFILE, not HOME.
func TestFindDataUnderProfile(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".local", "share", "trailboss"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "PATH": t.TempDir(),
		"TRAILBOSS_URL": "http://127.0.0.1:9"}
	if runtime.GOOS == "windows" {
		env["HOME"] = "" // Windows does not set it
	}
	if p := find(func(k string) string { return env[k] }); !p.Found {
		t.Errorf("not found: %s", p.Why)
	}
}

// On Windows, with no URL given, the hook tries no daemon: the default
// address is Trail Boss's beside tmux, which Windows does not have.
func TestNoDaemonHere(t *testing.T) {
	defer func(w bool) { onWindows = w }(onWindows)
	for _, tc := range []struct {
		windows bool
		env     map[string]string
		want    bool
	}{
		{true, nil, true},
		{true, map[string]string{EnvURL: "http://127.0.0.1:4000"}, false},
		{true, map[string]string{EnvDaemonURL: "http://127.0.0.1:4000/event/normalized"}, false},
		{false, nil, false},
	} {
		onWindows = tc.windows
		if got := noDaemonHere(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("windows %v, %v: noDaemonHere = %v, want %v", tc.windows, tc.env, got, tc.want)
		}
	}
}
