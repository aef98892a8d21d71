package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Environment of the fake noctalia, set by fake-noctalia.
const (
	envNoctaliaLog  = "FAKE_NOCTALIA_LOG"  // where each invocation's argv is appended
	envNoctaliaMode = "FAKE_NOCTALIA_MODE" // ok | error | exit1 | hang
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
