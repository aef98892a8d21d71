package testkit

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// NoPulse is why a test of Pulse skips on Windows: noctalia, the shell
// whose bar Pulse is, is a Linux (Wayland) desktop; the Pulse binaries there
// cost nothing (TestNoWindowsEnd).
const NoPulse = "Pulse lives in noctalia, a Linux (Wayland) desktop shell: no Windows end"

// Environment of the fake noctalia, set by fake-noctalia.
const (
	envNoctaliaLog  = "FAKE_NOCTALIA_LOG"  // where each invocation's argv is appended
	envNoctaliaMode = "FAKE_NOCTALIA_MODE" // ok | error | exit1 | hang
	// envNoctaliaConsent is how the consent panel answers a request
	// (fake-noctalia MODE consent=ANSWER): see answerConsent.
	envNoctaliaConsent = "FAKE_NOCTALIA_CONSENT"
)

// Noctalia is the fake `noctalia` program. It appends its argv as one line to
// $FAKE_NOCTALIA_LOG, then behaves as $FAKE_NOCTALIA_MODE says:
//
//	ok      print "ok: dispatched 1", exit 0 (the real one's success); for
//	        "msg plugins list", a list with claude-companion
//	error   print "error: no plugin entry matched …", exit 1 (the plugin is
//	        not installed: "msg plugins list" does not list it)
//	down    print "error: noctalia is not running" on stderr, exit 1
//	exit1   print nothing, exit 1
//	hang    start a child that hangs too, write both pids to $LOG.pids, hang
//
// With $FAKE_NOCTALIA_CONSENT set, it also plays the consent panel's
// person on a consent_request (answerConsent).
//
// A test binary runs it when invoked under the name noctalia (see TestMain).
func Noctalia() {
	mode := os.Getenv(envNoctaliaMode)
	if mode == "hang-child" {
		time.Sleep(time.Hour)
		return
	}
	log := os.Getenv(envNoctaliaLog)
	if log != "" {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, quoteArgv(append([]string{"noctalia"}, os.Args[1:]...)))
			f.Close()
		}
	}
	plugins := len(os.Args) == 4 && os.Args[2] == "plugins" && os.Args[3] == "list"
	if answer := os.Getenv(envNoctaliaConsent); answer != "" && len(os.Args) == 7 && os.Args[5] == "consent_request" && (mode == "" || mode == "ok") {
		answerConsent(log, answer, os.Args[6])
	}
	switch mode {
	case "", "ok":
		if plugins {
			fmt.Println("lowcache/claude-companion (enabled)\nnoctalia/clock (enabled)")
		} else {
			fmt.Println("ok: dispatched 1")
		}
	case "error":
		if plugins {
			fmt.Println("noctalia/clock (enabled)")
			return
		}
		fmt.Println("error: no plugin entry matched 'x' on target 'all'")
		os.Exit(1)
	case "down":
		fmt.Fprintln(os.Stderr, "error: noctalia is not running")
		os.Exit(1)
	case "exit1":
		os.Exit(1)
	case "hang":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), envNoctaliaMode+"=hang-child")
		if err := child.Start(); err == nil {
			pids := fmt.Sprintf("%d\n%d\n", os.Getpid(), child.Process.Pid)
			os.WriteFile(log+".pids", []byte(pids), 0o644)
		}
		time.Sleep(time.Hour)
	default:
		fmt.Fprintf(os.Stderr, "fake noctalia: unknown mode %q\n", mode)
		os.Exit(2)
	}
}

// quoteArgv joins argv with spaces, quoting any argument that a space join
// would make ambiguous, so that a golden line shows argv boundaries exactly.
func quoteArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\") || !strconv.IsPrint(firstRune(a)) {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

// cmdFakeNoctalia: fake-noctalia [mode]
// Puts a fake noctalia first on PATH; its argv log is $WORK/noctalia.got.
func cmdFakeNoctalia(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fake-noctalia")
	}
	if runtime.GOOS == "windows" {
		skipScript(ts, NoPulse)
	}
	mode := "ok"
	if len(args) > 0 {
		mode = args[0]
	}
	bin := ts.MkAbs(".fakebin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	if err := InstallAs(filepath.Join(bin, "noctalia")); err != nil {
		ts.Fatalf("install fake noctalia: %v", err)
	}
	if !strings.HasPrefix(ts.Getenv("PATH"), bin+string(os.PathListSeparator)) {
		ts.Setenv("PATH", bin+string(os.PathListSeparator)+ts.Getenv("PATH"))
	}
	ts.Setenv(envNoctaliaLog, ts.MkAbs("noctalia.got"))
	ts.Setenv(envNoctaliaMode, mode)
	ts.Setenv(envNoctaliaConsent, "")
	for _, a := range args[min(1, len(args)):] {
		if v, ok := strings.CutPrefix(a, "consent="); ok {
			ts.Setenv(envNoctaliaConsent, v)
		}
	}
}

// InstallAs makes the running test binary available at path, so that
// running path dispatches on its name (see TestMain). A hard link is tried
// first; it is free.
func InstallAs(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.Link(self, path); err == nil {
		return nil
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o755)
}

// answerConsent plays the claude-companion consent panel and the person at
// it, for `noctalia msg plugin … consent_request ID,SHORT`: it copies the
// request to $LOG.req with its nonce written <nonce> (after checking it is
// 32 hex digits) and a line saying whether it ended with a newline, and the request's and its directory's modes to
// $LOG.req.mode, then answers as the panel's button runs `consent.py reply
// ID ANSWER`: <id>.res holds {"nonce": "…", "decision": "…"} in the bytes
// consent.py writes (internal/consent's recording), "always" appending the
// key to the allowlist first, as it does. Besides its choices: "wrongnonce"
// answers allow under another nonce, "maybe" writes a decision no one
// knows, "none" never answers.
func answerConsent(log, answer, payload string) {
	id, _, _ := strings.Cut(payload, ",")
	dir := filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "claude-companion", "consent")
	req, err := os.ReadFile(filepath.Join(dir, id+".req"))
	if err != nil {
		os.WriteFile(log+".req", []byte("no request: "+err.Error()+"\n"), 0o644)
		return
	}
	var r struct{ Nonce, Key string }
	json.Unmarshal(req, &r)
	masked := strings.Replace(string(req), `"nonce": "`+r.Nonce+`"`, `"nonce": "<nonce>"`, 1)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r.Nonce) {
		masked = "bad nonce " + strconv.Quote(r.Nonce) + ": " + masked
	}
	// One line, then whether the file ended with a newline (consent.py's
	// does not).
	masked = strings.TrimSuffix(masked, "\n") + "\n" + fmt.Sprintf("newline at the end: %v\n", strings.HasSuffix(string(req), "\n"))
	os.WriteFile(log+".req", []byte(masked), 0o644)
	fi, _ := os.Stat(filepath.Join(dir, id+".req"))
	di, _ := os.Stat(dir)
	if fi != nil && di != nil {
		os.WriteFile(log+".req.mode", []byte(fmt.Sprintf("%v %v\n", di.Mode().Perm(), fi.Mode().Perm())), 0o644)
	}
	nonce, decision := r.Nonce, answer
	switch answer {
	case "none":
		return
	case "wrongnonce":
		nonce, decision = strings.Repeat("0", 32), "allow"
	case "always":
		state := os.Getenv("XDG_STATE_HOME")
		os.MkdirAll(filepath.Join(state, "noctalia", "claude-companion"), 0o700)
		key, _ := json.Marshal(r.Key)
		row := fmt.Sprintf(`{"key": %s, "added": %d}`+"\n", key, time.Now().Unix())
		if f, err := os.OpenFile(filepath.Join(state, "noctalia", "claude-companion", "allow.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			f.WriteString(row)
			f.Close()
		}
		decision = "allow"
	}
	res := `{"nonce": "` + nonce + `", "decision": "` + decision + `"}`
	os.WriteFile(filepath.Join(dir, id+".res"), []byte(res), 0o600)
}
