package hookwire_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hookwire/hookwire/internal/testkit"
)

// Coral's log parser, written from the rules the reference quotes
// (trailboss-vpet-coral.md §3.1, §3.3: coral-go/internal/pulse/parser.go
// and getLogStatus in routes/sessions.go), not from coral-pulse's code, so
// that it checks the emitter instead of agreeing with it.
var (
	coralStatusRE  = regexp.MustCompile(`\|\|PULSE:STATUS (.*?)\|\|`)
	coralSummaryRE = regexp.MustCompile(`\|\|PULSE:SUMMARY (.*?)\|\|`)
	coralANSI      = regexp.MustCompile(`\x1B(?:\][^\x07\x1B]*(?:\x07|\x1B\\)?|\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])`)
	coralControl   = regexp.MustCompile(`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]`)
)

const coralTail, coralMaxJoin = 256000, 5

// coralLogStatus is what Coral's dashboard shows for a log: the last
// STATUS and the last SUMMARY.
func coralLogStatus(log []byte) (status, summary string) {
	// The last 256,000 bytes, without their partial first line when the
	// file was longer; then line by line, escape sequences become spaces
	// and other control characters but \t, \n and \r go.
	raw := strings.Split(string(log), "\n")
	if len(log) > coralTail {
		raw = strings.Split(string(log[len(log)-coralTail:]), "\n")[1:]
	}
	for i, line := range raw {
		raw[i] = coralControl.ReplaceAllString(coralANSI.ReplaceAllString(line, " "), "")
	}
	lines := coralRejoin(raw)
	for i := len(lines) - 1; i >= 0 && (status == "" || summary == ""); i-- {
		if status == "" {
			status = coralLast(coralStatusRE, lines[i])
		}
		if summary == "" {
			summary = coralLast(coralSummaryRE, lines[i])
		}
	}
	return status, summary
}

// coralLast is the last match in a line, through cleanMatch: whitespace
// collapsed, and nothing for a value holding both '<' and '>'.
func coralLast(re *regexp.Regexp, line string) string {
	ms := re.FindAllStringSubmatch(line, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		v := strings.Join(strings.Fields(ms[i][1]), " ")
		if v != "" && !(strings.Contains(v, "<") && strings.Contains(v, ">")) {
			return v
		}
	}
	return ""
}

// coralRejoin is RejoinPulseLines: a line with a "||PULSE:" that is not
// closed after its last occurrence is joined, with a space, to the trimmed
// lines that follow until one holds "||", for at most 5 lines; a tag still
// open after that is dropped.
func coralRejoin(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		at := strings.LastIndex(line, "||PULSE:")
		if at < 0 || strings.Contains(line[at+len("||PULSE:"):], "||") {
			out = append(out, line)
			continue
		}
		joined, closed := line, false
		j := i + 1
		for ; j < len(lines) && j <= i+coralMaxJoin; j++ {
			joined += " " + strings.TrimSpace(lines[j])
			if strings.Contains(lines[j], "||") {
				closed = true
				break
			}
		}
		if closed {
			out = append(out, joined)
		}
		i = j
	}
	return out
}

// A session's log as a real terminal writes it, with coral-pulse's writes
// falling in the middle: escape sequences, spinner frames redrawn with CR
// and no LF, a partial line before each write, and another writer (tmux's
// `cat >>`) appending all the while. Coral must read back exactly the
// STATUS and SUMMARY that were sent, hostile text included.
func TestCoralParsesWhatCoralPulseWrites(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip(testkit.NoCoral)
	}
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	const uuid = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"
	dir := t.TempDir()
	log := filepath.Join(dir, "claude_coral_"+uuid+".log")
	terminal := func(s string) {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString(s)
	}
	hook := func(payload map[string]any) {
		t.Helper()
		b, _ := json.Marshal(payload)
		cmd := exec.Command(filepath.Join(bin, "coral-pulse"))
		cmd.Env = append(baseEnv(dir), "CORAL_SESSION_NAME=claude-"+uuid, "CORAL_URL=http://127.0.0.1:9")
		cmd.Stdin = bytes.NewReader(b)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("coral-pulse: %v %q", err, out)
		}
	}
	prompt := func(p string) map[string]any {
		return map[string]any{"session_id": "s1", "cwd": "/home/u/app", "hook_event_name": "UserPromptSubmit", "prompt": p}
	}
	bash := func(c string) map[string]any {
		return map[string]any{"session_id": "s1", "cwd": "/home/u/app", "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": c}}
	}

	// Claude Code starting up, and what the model printed of its own.
	terminal("\x1b]0;✳ claude\x07\x1b[?2004h\x1b[?25l\x1b[38;5;174m╭────────────╮\x1b[39m\r\n" +
		"│ \x1b[1mWelcome\x1b[22m │\r\n||PULSE:STATUS Reading codebase structure||\r\n" +
		"⏺ ||PULSE:SUMMARY Old goal||\r\n\r⠋ Thinking…\r⠙ Thinking…\r\x1b[2K> typing a prom")

	// The terminal keeps writing while the hooks run.
	stop := make(chan struct{})
	var noise sync.WaitGroup
	noise.Go(func() {
		frames := []string{"\r\x1b[2K⠹ Running… (3s · ↑ 1.2k tokens)", "\r\x1b[2K⠸ Running…", "\x1b[31mFAIL\x1b[0m\tpkg/x\t0.01s\r\n", "\x1b[1A\x1b[2K"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				terminal(frames[i%len(frames)])
			}
		}
	})
	hook(prompt("\x1b[1mFix\x1b[0m the <b>parser</b> || now\r\nsecond line"))
	hook(bash("go test ./..."))
	hook(bash("echo '||PULSE:STATUS hacked||'"))
	close(stop)
	noise.Wait()
	terminal("partial output, no newline\r")
	hook(bash("cd /home/u/app && go test -run 'TestScript/coral' ./... \x1b[31m2>&1\x1b[0m | tee out.log"))
	terminal("\x1b[2K\r⠼ Running… \x1b[2m(esc to interrupt)\x1b[22m")

	b, _ := os.ReadFile(log)
	status, summary := coralLogStatus(b)
	if want := "Running go test -run 'TestScript/coral' ./... 2>&1 | tee ou…"; status != want {
		t.Errorf("Coral reads STATUS %q, want %q", status, want)
	}
	if want := "Fix the ‹b›parser‹/b› | now"; summary != want {
		t.Errorf("Coral reads SUMMARY %q, want %q", summary, want)
	}

	// Each tag is read back exactly as well: the last one of each kind, one
	// write at a time.
	for _, c := range []struct {
		payload map[string]any
		status  string
		summary string
	}{
		{bash("echo '||PULSE:STATUS hacked||'"), "Running echo '|PULSE:STATUS hacked|'", ""},
		{prompt(strings.Repeat("日本語のテキスト", 40)), "Thinking", string([]rune(strings.Repeat("日本語のテキスト", 40))[:119]) + "…"},
		{prompt(strings.Repeat("word ", 2048)), "Thinking", strings.TrimSpace(strings.Repeat("word ", 24)) + "…"},
		{map[string]any{"session_id": "s1", "cwd": "/home/u/app", "hook_event_name": "PreToolUse",
			"tool_name": "Grep", "tool_input": map[string]any{"pattern": "<T any>\u202e\x1b[7m"}}, `Searching for "‹T any›"`, ""},
	} {
		terminal("\r⠋ \x1b[2K")
		hook(c.payload)
		b, _ := os.ReadFile(log)
		status, summary := coralLogStatus(b)
		if status != c.status {
			t.Errorf("%v: Coral reads STATUS %q, want %q", c.payload, status, c.status)
		}
		if c.summary != "" && summary != c.summary {
			t.Errorf("%v: Coral reads SUMMARY %q, want %q", c.payload, summary, c.summary)
		}
	}
}

// The parser above is Coral's: check it on the reference's own examples,
// so that a mistake in it cannot hide one in the emitter.
func TestCoralParserItself(t *testing.T) {
	for _, c := range []struct {
		log, status, summary string
	}{
		{"x\n||PULSE:STATUS Running tests||\n", "Running tests", ""},
		{"x\n||PULSE:STATUS a|| then ||PULSE:STATUS b||\n||PULSE:SUMMARY g||\n", "b", "g"},
		{"x\n||PULSE:STATUS  spaced \t out ||\r\n", "spaced out", ""},
		{"x\n||PULSE:STATUS keep||\n||PULSE:STATUS <template> here||\n", "keep", ""},
		{"x\n\x1b[32m||PULSE:STATUS green||\x1b[0m\n", "green", ""},
		{"x\n||PULSE:STATUS wrapped across\n  two lines||\n", "wrapped across two lines", ""},
		{"x\n||PULSE:STATUS never\n1\n2\n3\n4\n5\nclosed||\n", "", ""},
		{"||PULSE:STATUS on the first line of a short log||\n", "on the first line of a short log", ""},
		{"||PULSE:STATUS cut off||\n" + strings.Repeat("x", coralTail-1) + "\n", "", ""},
		{"x\n\x1b]0;title without its BEL\n||PULSE:STATUS next line||\n", "next line", ""},
		{"x\n\x1b_||PULSE:STATUS framed||\x1b\\\n", "framed", ""},
		{"x\n||PULSE:STATUS red\x1b[31mtext||\n", "red text", ""},
	} {
		status, summary := coralLogStatus([]byte(c.log))
		if status != c.status || summary != c.summary {
			t.Errorf("%q: %q, %q; want %q, %q", c.log, status, summary, c.status, c.summary)
		}
	}
}

// coralLogs holds, for each hostile case's directory, the Coral log its
// target uses.
var coralLogs sync.Map

// coralTarget is a Coral session for the hostile matrix. Its log is in /tmp,
// where coral-pulse looks after $TMPDIR, since some cases point TMPDIR
// somewhere unusable. "ok": the session is named by CORAL_SESSION_NAME and
// its log exists. "hang": the session must be asked of a tmux that hangs.
// "refuse": the session's log does not exist, and must still not exist
// after the run.
func coralTarget(t testing.TB, dir, mode string) []string {
	if runtime.GOOS == "windows" {
		t.Skip(testkit.NoCoral)
	}
	uuid := randomUUID(t)
	log := filepath.Join("/tmp", "claude_coral_"+uuid+".log")
	coralLogs.Store(dir, log)
	t.Cleanup(func() { os.Remove(log) })
	env := []string{"CORAL_URL=http://127.0.0.1:9"}
	switch mode {
	case "ok":
		if err := os.WriteFile(log, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, "CORAL_SESSION_NAME=claude-"+uuid)
	case "hang":
		bin := filepath.Join(dir, "bin")
		os.MkdirAll(bin, 0o755)
		if err := testkit.InstallAs(filepath.Join(bin, "tmux")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(log, nil, 0o600); err != nil { // so that tmux is asked
			t.Fatal(err)
		}
		env = append(env, "TMUX_PANE=%1", "PATH="+bin, "FAKE_TMUX_REPLY=hang", "FAKE_TMUX_LOG="+filepath.Join(dir, "tmux.got"))
	case "refuse":
		env = append(env, "CORAL_SESSION_NAME=claude-"+uuid)
		t.Cleanup(func() {
			if _, err := os.Lstat(log); err == nil {
				t.Errorf("coral-pulse created %s", log)
			}
		})
	}
	return env
}

func coralDelivered(dir string) int {
	log, _ := coralLogs.Load(dir)
	b, _ := os.ReadFile(log.(string))
	return bytes.Count(b, []byte("||PULSE:"))
}

func randomUUID(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// BenchmarkCoralOutside measures what coral-pulse costs where it has
// nothing to do, beside /bin/true: outside tmux, and in a tmux pane while
// Coral is not running (no log in $TMPDIR or /tmp, so tmux is not asked).
//
//	go test -run '^$' -bench CoralOutside -benchtime 1000x .
func BenchmarkCoralOutside(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("floor=/bin/true", func(b *testing.B) {
		spawn(b, exec.Command("/bin/true"), []byte(goodPayload), nil)
	})
	for _, c := range []struct{ name, env string }{
		{"outside tmux", "TERM=xterm"},
		{"tmux, no Coral", "TMUX_PANE=%1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			spawn(b, exec.Command(filepath.Join(bin, "coral-pulse"), "Stop"), []byte(goodPayload), append(baseEnv(dir), c.env))
			if entries, _ := os.ReadDir(dir); len(entries) != 1 { // run/, from baseEnv
				b.Errorf("coral-pulse left files: %v", entries)
			}
		})
	}
}
