package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/transport"
)

// testCLI does what its flags say, to exercise the runtime around it.
type testCLI struct {
	Panic  bool          `help:"panic"`
	Fail   bool          `help:"return an error"`
	Send   string        `help:"send a request that answers this error"`
	Agent  string        `help:"agent"`
	Reply  string        `help:"protocol reply"`
	Await  time.Duration `help:"await a human"`
	Args   []string      `arg:"" optional:""`
	budget time.Duration
}

type fakeRequest struct{ err string }

func (r fakeRequest) Describe() string { return "FAKE line\nbody" }
func (r fakeRequest) Summary() string  { return "fake" }
func (r fakeRequest) Do(ctx context.Context) (transport.Reply, error) {
	if r.err != "" {
		return transport.Reply{Status: 500}, errors.New(r.err)
	}
	return transport.Reply{Status: 200, Body: []byte("fine")}, nil
}

func (c *testCLI) Run(inv *Invocation) error {
	inv.Event(c.Agent, c.Args)
	if c.Await > 0 {
		inv.AwaitHuman(c.Await)
	}
	dl, _ := inv.Context().Deadline()
	c.budget = dl.Sub(inv.start) + reserve
	switch {
	case c.Panic:
		panic("boom")
	case c.Fail:
		return errors.New("it failed")
	case c.Send != "":
		inv.Send(fakeRequest{err: strings.TrimPrefix(c.Send, "ok")})
	}
	if c.Reply != "" {
		inv.Reply([]byte(c.Reply))
	}
	return nil
}

type result struct {
	code   int
	stdout string
	stderr string
	log    map[string]any
	cli    *testCLI
}

func run(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "debug.log")
	t.Setenv(EnvLog, logPath)
	t.Setenv(EnvDryRun, "")
	for k, v := range env {
		t.Setenv(k, v)
	}
	in := filepath.Join(dir, "stdin")
	os.WriteFile(in, []byte(stdin), 0o600)
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cli := &testCLI{}
	var stdout, stderr bytes.Buffer
	code := Run(Binary{Name: "t", CLI: cli}, args, f, &stdout, &stderr)
	r := result{code: code, stdout: stdout.String(), stderr: stderr.String(), cli: cli}
	if b, err := os.ReadFile(logPath); err == nil {
		if err := json.Unmarshal(b, &r.log); err != nil {
			t.Fatalf("log line %q: %v", b, err)
		}
		if bytes.Count(b, []byte("\n")) != 1 {
			t.Fatalf("want one log line, got %q", b)
		}
	}
	return r
}

func TestRunPanicIsExitZero(t *testing.T) {
	r := run(t, nil, `{"hook_event_name":"Stop","session_id":"s"}`, "--panic")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r.log["outcome"] != "panic" || r.log["error"] != "panic: boom" || r.log["kind"] != "turn_end" {
		t.Errorf("log %v", r.log)
	}
}

func TestRunErrorIsExitZero(t *testing.T) {
	r := run(t, nil, "", "--fail", "Stop")
	if r.code != 0 || r.stdout != "" || r.log["outcome"] != "failed" || r.log["error"] != "it failed" {
		t.Errorf("code %d, stdout %q, log %v", r.code, r.stdout, r.log)
	}
}

func TestRunBadFlagStillRuns(t *testing.T) {
	r := run(t, nil, `{"hook_event_name":"PreToolUse","session_id":"s"}`, "--nope", "--send=ok")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	notes, _ := r.log["notes"].([]any)
	if len(notes) == 0 || !strings.Contains(notes[0].(string), "unknown flag --nope") {
		t.Errorf("log %v", r.log)
	}
	if r.log["kind"] != "tool_start" {
		t.Errorf("the event was not handled after dropping the flags: %v", r.log)
	}
}

func TestRunDryRun(t *testing.T) {
	r := run(t, map[string]string{EnvDryRun: "1"}, "", "--send=ok", "Stop")
	if r.code != 0 || r.stdout != "FAKE line\nbody\n" {
		t.Errorf("code %d, stdout %q", r.code, r.stdout)
	}
	if r.log["outcome"] != "dry-run" || r.log["dry_run"] != true {
		t.Errorf("log %v", r.log)
	}
}

func TestRunSendFailureLogged(t *testing.T) {
	r := run(t, nil, "", "--send=refused", "Stop")
	if r.code != 0 || r.stdout != "" || r.log["outcome"] != "failed" || r.log["error"] != "refused" {
		t.Errorf("code %d, stdout %q, log %v", r.code, r.stdout, r.log)
	}
	sent := r.log["sent"].([]any)[0].(map[string]any)
	if sent["to"] != "fake" || sent["status"] != float64(500) {
		t.Errorf("sent %v", sent)
	}
}

func TestRunReply(t *testing.T) {
	r := run(t, nil, "", "--reply={}", "Stop")
	if r.stdout != "{}" {
		t.Errorf("stdout %q", r.stdout)
	}
}

func TestRunHelpIsForPeople(t *testing.T) {
	r := run(t, nil, "", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Usage: t") {
		t.Errorf("code %d, stdout %q", r.code, r.stdout)
	}
}

func TestSessionEndShrinksTheBudget(t *testing.T) {
	r := run(t, nil, `{"hook_event_name":"SessionEnd","session_id":"s"}`)
	if r.cli.budget != SessionEndBudget {
		t.Errorf("budget %v, want %v", r.cli.budget, SessionEndBudget)
	}
	r = run(t, nil, `{"hook_event_name":"Stop","session_id":"s"}`)
	if r.cli.budget != Budget {
		t.Errorf("budget %v, want %v", r.cli.budget, Budget)
	}
}

func TestUnknownEventNoted(t *testing.T) {
	r := run(t, nil, `{"hook_event_name":"Mystery","session_id":"s"}`)
	notes, _ := r.log["notes"].([]any)
	if len(notes) != 1 || notes[0] != `event "Mystery" is not one this suite maps (agent claude)` {
		t.Errorf("notes %v", notes)
	}
}

func TestLogUnwritableIsSilent(t *testing.T) {
	r := run(t, map[string]string{EnvLog: "/dev/null/nope/debug.log"}, "", "Stop")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestAwaitHumanExtendsTheDeadline(t *testing.T) {
	r := run(t, nil, `{"hook_event_name":"PermissionRequest","session_id":"s"}`, "--await=100s")
	if r.cli.budget < 99*time.Second {
		t.Errorf("budget %v, want about 100s", r.cli.budget)
	}
}

// personCLI is a command for a person.
type personCLI struct {
	Agent string `help:"agent"`
	Panic bool   `help:"panic"`
	ran   bool
}

func (c *personCLI) Run(con *Console) error {
	c.ran = true
	if c.Panic {
		var m map[string]any
		_ = m["x"].(string) // the kind of bug issue 14 found in install
	}
	return nil
}

func runPerson(t *testing.T, args ...string) (result, *personCLI) {
	t.Helper()
	t.Setenv(EnvLog, filepath.Join(t.TempDir(), "debug.log"))
	person := &personCLI{}
	cli := &testCLI{}
	var stdout, stderr bytes.Buffer
	code := Run(Binary{Name: "t", CLI: cli, Commands: []Command{{Name: "install", Help: "h", CLI: person}}},
		args, nil, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String(), cli: cli}, person
}

// A person's command that panics says so and fails; a hook's still exits 0.
func TestPersonCommandPanicFails(t *testing.T) {
	r, _ := runPerson(t, "install", "--panic")
	if r.code == 0 || !strings.Contains(r.stderr, "panic") || !strings.Contains(r.stderr, "interface conversion") {
		t.Errorf("code %d, stderr %q", r.code, r.stderr)
	}
}

// Flags may come before the command word: kong decides what the words are.
func TestPersonCommandFlagsFirst(t *testing.T) {
	for _, args := range [][]string{
		{"--agent", "claude", "install"},
		{"--agent=claude", "install"},
		{"install", "--agent", "claude"},
	} {
		r, person := runPerson(t, args...)
		if r.code != 0 || !person.ran || person.Agent != "claude" || r.cli.Args != nil {
			t.Errorf("%q: code %d, ran %v, agent %q, hook args %q, stderr %q", args, r.code, person.ran, person.Agent, r.cli.Args, r.stderr)
		}
	}
	// A hook whose flag takes the value "install" is still a hook.
	r, person := runPerson(t, "--agent", "install", "Stop")
	if person.ran || r.cli.Agent != "install" {
		t.Errorf("hook with --agent install: ran the command %v, agent %q", person.ran, r.cli.Agent)
	}
}

// slowWriter is a stdout whose Write blocks until released.
type slowWriter struct {
	started, release chan struct{}
	mu               sync.Mutex
	got              []byte
}

func (w *slowWriter) Write(b []byte) (int, error) {
	close(w.started)
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got = append(w.got, b...)
	return len(b), nil
}

// The watchdog never ends the process in the middle of a reply: a reply
// being written is finished first, and none is begun after.
func TestWatchdogNeverCutsAReply(t *testing.T) {
	exited := make(chan int, 1)
	exit = func(code int) { exited <- code; runtime.Goexit() }
	replyGrace = time.Minute // a loaded machine must not make this test flaky
	t.Cleanup(func() { exit, replyGrace = os.Exit, reserve })
	w := &slowWriter{started: make(chan struct{}), release: make(chan struct{})}
	inv := newInvocation(&Binary{Name: "t"}, nil, w, io.Discard)
	go inv.Reply([]byte(`{"decision":"allow"}`))
	<-w.started
	inv.mu.Lock()
	inv.arm(0) // the deadline, now
	inv.mu.Unlock()
	select {
	case <-exited:
		t.Fatal("exited while the reply was being written")
	case <-time.After(50 * time.Millisecond):
	}
	close(w.release)
	<-exited
	inv.Reply([]byte("late"))
	w.mu.Lock()
	defer w.mu.Unlock()
	if string(w.got) != `{"decision":"allow"}` {
		t.Errorf("stdout %q", w.got)
	}
}

type versionCLI struct {
	Version kong.VersionFlag
}

func (versionCLI) Run(*Invocation) error { return nil }

// go install …@v1.2.3 stamps the module's version in the build info, not
// Version: --version says it rather than "dev".
func TestVersionFromBuildInfo(t *testing.T) {
	saved := readBuildInfo
	t.Cleanup(func() { readBuildInfo = saved })
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/hookwire/hookwire", Version: "v1.2.3"}}, true
	}
	var stdout bytes.Buffer
	code := Run(Binary{Name: "t", CLI: &versionCLI{}}, []string{"--version"}, nil, &stdout, io.Discard)
	if code != 0 || stdout.String() != "t v1.2.3\n" {
		t.Errorf("code %d, stdout %q", code, stdout.String())
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/hookwire/hookwire", Version: "(devel)"}}, true
	}
	stdout.Reset()
	Run(Binary{Name: "t", CLI: &versionCLI{}}, []string{"--version"}, nil, &stdout, io.Discard)
	if stdout.String() != "t dev\n" {
		t.Errorf("a build from a checkout: %q", stdout.String())
	}
}

// secretRequest is a delivery whose URL, reply and error hold credentials.
type secretRequest struct{}

func (secretRequest) Describe() string { return "POST http://user:SECRETpw@127.0.0.1:4000/x" }
func (secretRequest) Summary() string  { return "POST http://user:SECRETpw@127.0.0.1:4000/x (2 bytes)" }
func (secretRequest) Do(context.Context) (transport.Reply, error) {
	return transport.Reply{Status: 401, Body: []byte(`{"error":"bad token","token":"SECRETtok"}`)},
		errors.New(`Post "http://user:SECRETpw@127.0.0.1:4000/x?access_token=SECRETq": 401`)
}

type secretCLI struct{}

func (secretCLI) Run(inv *Invocation) error {
	inv.Send(secretRequest{})
	inv.Notef("retrying http://user:SECRETpw@127.0.0.1:4000/x with Authorization: Bearer SECRETbearer1")
	return nil
}

// The debug log never holds a credential: not in a URL's userinfo, a reply
// body, an error or a note.
func TestLogRedactsCredentials(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "debug.log")
	t.Setenv(EnvLog, logPath)
	t.Setenv(EnvDryRun, "")
	Run(Binary{Name: "t", CLI: &secretCLI{}}, nil, nil, io.Discard, io.Discard)
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("SECRET")) || !bytes.Contains(b, []byte("<redacted>")) {
		t.Errorf("log: %s", b)
	}
}

// A debug log that blocks (a file on a hung network mount: a FIFO or a
// link never gets this far) does not keep the agent waiting: the log has a
// timer of its own, which ends the process at the deadline.
func TestBlockingLogEndsAtTheDeadline(t *testing.T) {
	exited := make(chan int, 1)
	exit = func(code int) { exited <- code; runtime.Goexit() }
	release, done := make(chan struct{}), make(chan struct{})
	openLog = func(string) (*os.File, error) { <-release; return nil, os.ErrNotExist }
	t.Cleanup(func() { close(release); <-done; exit, openLog = os.Exit, safefile.OpenLog })
	inv := newInvocation(&Binary{Name: "t"}, nil, io.Discard, io.Discard)
	inv.logPath = "/hung/mount/hookwire.log"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	inv.ctx = ctx
	start := time.Now()
	go func() { inv.finish(); close(done) }()
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		if took := time.Since(start); took > 2*logGrace {
			t.Errorf("took %v", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the process waited for the log")
	}
}
