package hookwire_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
)

// tmuxServer is a private tmux server for one test: its own socket, no
// configuration file, killed at the end.
type tmuxServer struct {
	t    *testing.T
	bin  string
	sock string
}

func newTmux(t *testing.T, dir string) *tmuxServer {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: this test drives coral-pulse inside a tmux pane piped to its log, as Coral does (apt-get install tmux)")
	}
	s := &tmuxServer{t: t, bin: bin, sock: filepath.Join(dir, "tmux.sock")}
	t.Cleanup(func() { exec.Command(s.bin, "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxServer) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.bin, append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// waitFor polls until ok holds, for at most 10 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// screen replays a terminal log into a fresh 80x24 tmux pane and returns
// what the pane shows, attributes included, and where its cursor is.
func (s *tmuxServer) screen(name, log string) string {
	s.t.Helper()
	// The pane title set after the log is the sign that tmux has parsed all
	// of it: tmux handles a pane's output in order.
	s.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24",
		`cat '`+log+`'; printf '\033]2;replayed\033\\'; exec sleep 600`)
	waitFor(s.t, name+" to replay its log", func() bool { return s.run("display-message", "-p", "-t", name, "#{pane_title}") == "replayed" })
	shown := s.run("capture-pane", "-p", "-e", "-t", name)
	cursor := s.run("display-message", "-p", "-t", name, "#{cursor_x},#{cursor_y}")
	s.run("kill-session", "-t", name)
	return shown + "\ncursor " + cursor
}

// coral-pulse as Coral runs it: Coral starts the agent in a tmux session
// named <type>-<uuid> and pipes its pane into $TMPDIR/<type>_coral_<uuid>.log
// (`pipe-pane -o "cat >> LOG"`); the agent's hooks run in that pane's
// environment. Here the agent is a script that draws what Claude Code's TUI
// draws (a framed input box with the cursor inside it, a spinner redrawn
// with CR, partial lines, colours), one step at a time, and coral-pulse runs
// between the steps with the agent's hook payloads. After each run:
//
//   - the bytes coral-pulse appended are exactly its APC-framed tags;
//   - Coral's own parsing rules (coralLogStatus) read back the STATUS and
//     the SUMMARY, also after the agent printed more than the 256,000 bytes
//     Coral reads, which the first SUMMARY has left behind;
//   - no goal is posted to Coral's API: the log carries it.
//
// Then the log is replayed into a terminal with and without coral-pulse's
// writes: the screens are the same, character for character, colours and
// cursor included. The same log with the tags framed as they used to be
// (CRLF before and after) shows a different screen, so the comparison can
// fail.
func TestCoralPulseInTmux(t *testing.T) {
	dir := t.TempDir()
	tm := newTmux(t, dir)
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o700)
	uuid := randomUUID(t)
	session := "claude-" + uuid
	log := filepath.Join(tmp, "claude_coral_"+uuid+".log")

	var mu sync.Mutex
	var posts []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, r.URL.Path+" "+string(b))
		mu.Unlock()
		w.Write([]byte(`{"ok":true}`))
	}))
	defer api.Close()

	// The agent: step N's bytes are stepN.out, printed when goN appears.
	agent := filepath.Join(dir, "agent.sh")
	os.WriteFile(agent, []byte(`i=0
while :; do
	while [ ! -e "$0.go$i" ]; do sleep 0.01; done
	cat "$0.step$i"
	i=$((i+1))
done
`), 0o700)
	tm.run("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "sh "+agent)
	tm.run("pipe-pane", "-t", session, "-o", "cat >> '"+log+"'")
	pane := tm.run("display-message", "-p", "-t", session, "#{pane_id}")
	server := tm.run("display-message", "-p", "-t", session, "#{pid}")

	logBytes := func() []byte { b, _ := os.ReadFile(log); return b }
	step := 0
	draw := func(out string) {
		t.Helper()
		mark := fmt.Sprintf("\x1b]2;step %d\x07", step) // a title: nothing on screen
		os.WriteFile(fmt.Sprintf("%s.step%d", agent, step), []byte(out+mark), 0o600)
		os.WriteFile(fmt.Sprintf("%s.go%d", agent, step), nil, 0o600)
		waitFor(t, fmt.Sprintf("step %d in the log", step), func() bool { return bytes.HasSuffix(logBytes(), []byte(mark)) })
		step++
	}
	type write struct{ at, end int }
	var writes []write
	hook := func(payload string, want string) {
		t.Helper()
		before := len(logBytes())
		cmd := exec.Command(filepath.Join(bin, "coral-pulse"))
		cmd.Env = append(baseEnv(dir), "TMPDIR="+tmp, "PATH="+filepath.Dir(tm.bin),
			"TMUX="+tm.sock+","+server+",0", "TMUX_PANE="+pane, "CORAL_URL="+api.URL)
		cmd.Stdin = strings.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("coral-pulse: %v %q", err, out)
		}
		b := logBytes()
		if got := string(b[before:]); got != want {
			t.Errorf("coral-pulse appended %q, want %q", got, want)
		}
		writes = append(writes, write{before, len(b)})
	}
	reads := func(status, summary string) {
		t.Helper()
		if s, g := coralLogStatus(logBytes()); s != status || g != summary {
			t.Errorf("Coral reads STATUS %q, SUMMARY %q; want %q, %q", s, g, status, summary)
		}
	}
	const (
		st      = "\x1b_||PULSE:STATUS "
		sum     = "\x1b_||PULSE:SUMMARY "
		end     = "||\x1b\\"
		goal    = "Fix the “flaky” payment test, 支付" // “ is E2 80 9C: a C1 ST byte inside UTF-8
		payload = `{"session_id":"0b1c2d3e-1111-4a5e-9d4f-0d0b1f7e2a11","transcript_path":"/home/u/.claude/projects/x.jsonl","cwd":"/home/u/app","permission_mode":"default",`
	)
	inputBox := "\x1b[38;5;244m╭──────────────────────────────────────────────╮\x1b[39m\r\n" +
		"\x1b[38;5;244m│\x1b[39m > \x1b[7m \x1b[27m                                          \x1b[38;5;244m│\x1b[39m\r\n" +
		"\x1b[38;5;244m╰──────────────────────────────────────────────╯\x1b[39m\r\n" +
		"  ? for shortcuts\x1b[3A\x1b[6G" // back into the box, after "> "

	draw("\x1b[?25l\x1b[1m✻ Welcome to Claude Code!\x1b[22m\r\n\r\n  cwd: /home/u/app\r\n\r\n" + inputBox)
	hook(payload+`"hook_event_name":"SessionStart","source":"startup"}`, st+"Waiting for instructions"+end)
	reads("Waiting for instructions", "")

	draw(goal + "\x1b[J\r\n\r\n\x1b[38;5;174m✻\x1b[39m Thinking…")
	hook(payload+`"hook_event_name":"UserPromptSubmit","prompt":"`+goal+`\n\nIt fails one run in twenty."}`,
		sum+goal+end+st+"Thinking"+end)
	reads("Thinking", goal)
	summaryAt := writes[len(writes)-1].at

	draw("\r\x1b[2K\x1b[38;5;174m✢\x1b[39m Thinking… (3s · ↑ 1.2k tokens)\r\n⏺ Bash(go test ./payment/...)\r\n  ⎿  Running…")
	hook(payload+`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./payment/..."},"tool_use_id":"toolu_01"}`,
		sum+goal+end+st+"Running go test ./payment/..."+end)
	reads("Running go test ./payment/...", goal)

	// More test output than Coral reads: the prompt's SUMMARY leaves the tail.
	var flood strings.Builder
	for i := 0; flood.Len() < 300_000; i++ {
		fmt.Fprintf(&flood, "\r\x1b[2K=== RUN   TestCharge/case_%04d\r\n--- \x1b[32mPASS\x1b[0m: TestCharge/case_%04d (0.00s)\r\n", i, i)
	}
	draw(flood.String() + "\x1b[31mFAIL\x1b[0m\tpayment\t0.412s\r\n")
	if len(logBytes())-summaryAt <= 256_000 {
		t.Fatalf("the prompt's SUMMARY is still within Coral's tail: the flood is too small")
	}
	hook(payload+`"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./payment/..."},"tool_response":{"stdout":"FAIL"}}`,
		sum+goal+end+st+"Thinking"+end)
	reads("Thinking", goal)

	draw("⏺ The retry loop races the webhook. Fixed.\r\n\r\n" + inputBox)
	hook(payload+`"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"The retry loop races the webhook. Fixed."}`,
		sum+goal+end+st+"Waiting for instructions"+end)
	reads("Waiting for instructions", goal)

	// A minute later Claude Code says it is waiting for input: that is not
	// news, and the status that says for what stays.
	draw("")
	hook(payload+`"hook_event_name":"Notification","message":"Claude is waiting for your input","notification_type":"idle_prompt"}`, "")
	reads("Waiting for instructions", goal)

	mu.Lock()
	if len(posts) > 0 {
		t.Errorf("posted to Coral's API while the log carries everything: %q", posts)
	}
	mu.Unlock()

	// The screen, with and without coral-pulse's writes.
	b := logBytes()
	var agentOnly, oldFraming []byte
	last := 0
	for _, w := range writes {
		agentOnly = append(agentOnly, b[last:w.at]...)
		oldFraming = append(oldFraming, b[last:w.at]...)
		for _, tag := range strings.Split(string(b[w.at:w.end]), "\x1b\\") {
			if tag = strings.TrimPrefix(tag, "\x1b_"); tag != "" {
				oldFraming = append(oldFraming, "\r\n"+tag+"\r\n"...)
			}
		}
		last = w.end
	}
	agentOnly = append(agentOnly, b[last:]...)
	oldFraming = append(oldFraming, b[last:]...)
	files := map[string][]byte{"with": b, "without": agentOnly, "crlf": oldFraming}
	shown := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name+".log")
		os.WriteFile(p, content, 0o600)
		shown[name] = tm.screen("replay-"+name, p)
	}
	if shown["with"] != shown["without"] {
		t.Errorf("coral-pulse's writes change the screen:\n--- agent alone:\n%s\n--- with coral-pulse:\n%s", shown["without"], shown["with"])
	}
	if shown["crlf"] == shown["without"] {
		t.Errorf("tags framed with CRLF leave the screen as it was: the comparison cannot tell")
	}
	if !strings.Contains(shown["without"], "? for shortcuts") {
		t.Errorf("the replayed screen is not the agent's:\n%s", shown["without"])
	}
	if testing.Verbose() {
		t.Logf("screen:\n%s", shown["with"])
	}
}

// Without a log to carry it, a prompt's goal is posted to Coral's API, at
// the port Coral runs on: Coral passes it to nobody, but the tmux server it
// started inherited CORAL_PORT from it, and coral-pulse reads it there when
// neither its own environment nor Coral's board state names a server.
func TestCoralPortFromTmux(t *testing.T) {
	dir := t.TempDir()
	tm := newTmux(t, dir)
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 4)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Method + " " + r.URL.Path + " " + string(b)
		w.Write([]byte(`{"ok":true}`))
	}))
	defer api.Close()
	port := api.URL[strings.LastIndex(api.URL, ":")+1:]

	uuid := randomUUID(t)
	session := "claude-" + uuid
	tm.run("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "exec sleep 600")
	pane := tm.run("display-message", "-p", "-t", session, "#{pane_id}")
	server := tm.run("display-message", "-p", "-t", session, "#{pid}")
	for _, scope := range []string{"-g", "-t"} {
		args := []string{"set-environment", "-g", "CORAL_PORT", port}
		if scope == "-t" {
			tm.run("set-environment", "-g", "CORAL_PORT", "1") // the session's own wins
			args = []string{"set-environment", "-t", session, "CORAL_PORT", port}
		}
		tm.run(args...)
		cmd := exec.Command(filepath.Join(bin, "coral-pulse"))
		cmd.Env = append(baseEnv(dir), "PATH="+filepath.Dir(tm.bin), "CORAL_SESSION_NAME="+session,
			"TMUX="+tm.sock+","+server+",0", "TMUX_PANE="+pane)
		cmd.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"/home/u/app","hook_event_name":"UserPromptSubmit","prompt":"Fix the flaky payment test"}`)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("coral-pulse: %v %q", err, out)
		}
		want := `POST /api/sessions/live/app/events {"event_type":"goal","summary":"Fix the flaky payment test","session_id":"` + uuid + `"}`
		select {
		case g := <-got:
			if g != want {
				t.Errorf("tmux %s environment: Coral got %s, want %s", scope, g, want)
			}
		default:
			t.Errorf("tmux %s environment: nothing posted to CORAL_PORT=%s", scope, port)
		}
	}
}
