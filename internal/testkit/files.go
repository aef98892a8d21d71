package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAppend: append DST SRC [START [END]] appends SRC's bytes START:END to
// DST, as an agent appends to its transcript (a part of a line makes a torn
// tail).
func cmdAppend(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 4 {
		ts.Fatalf("usage: append DST SRC [START [END]]")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	start, end := 0, len(b)
	if len(args) > 2 {
		start, _ = strconv.Atoi(args[2])
	}
	if len(args) > 3 {
		end, _ = strconv.Atoi(args[3])
	}
	if start < 0 || end > len(b) || start > end {
		ts.Fatalf("append: range %d:%d of %d bytes", start, end, len(b))
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	defer f.Close()
	if _, err := f.Write(b[start:end]); err != nil {
		ts.Fatalf("%v", err)
	}
}

// cmdClaudeSession: claude-session DIR SESSIONID writes DIR/sessions/<pid>.json
// naming SESSIONID, where pid is this test process: the parent of the
// commands a script runs, as Claude Code is the grandparent of its hooks.
func cmdClaudeSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: claude-session DIR SESSIONID")
	}
	dir := filepath.Join(ts.MkAbs(args[0]), "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		ts.Fatalf("%v", err)
	}
	pid := os.Getpid()
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/home/u/app","startedAt":1764493200000}`, pid, args[1])
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)+".json"), []byte(body), 0o600); err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Setenv("CLAUDE_PID", strconv.Itoa(pid))
}

// cmdSleep: sleep DURATION pauses the script, while a background command runs.
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("sleep: %v", err)
	}
	time.Sleep(d)
}

// cmdCount: count FILE N [TEXT] waits (up to 5 s) until FILE holds N lines
// (or N times TEXT), then checks it holds exactly N (`! count`: anything
// but N): for what a detached process writes after the command that started
// it has returned (pulse-claude's finisher, wrap's relay, a fake noctalia
// they run, their debug log lines).
func cmdCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: count FILE N [TEXT]")
	}
	sep := []byte("\n")
	if len(args) == 3 {
		sep = []byte(args[2])
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("count: %v", err)
	}
	count := func() int {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		return bytes.Count(b, sep)
	}
	for deadline := time.Now().Add(5 * time.Second); count() < want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a straggler would show up now
	if n := count(); (n == want) == neg {
		ts.Fatalf("%s holds %d times %q, want %s%d", args[0], n, sep, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdIsLink: islink PATH asserts that PATH is a symbolic link (! islink:
// that it is not): a file edited through a link is replaced and the link
// stays.
func cmdIsLink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: islink PATH")
	}
	fi, err := os.Lstat(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if link := fi.Mode()&os.ModeSymlink != 0; link == neg {
		ts.Fatalf("%s: symbolic link: %v", args[0], link)
	}
}
