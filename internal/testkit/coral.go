package testkit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Environment of the fake tmux, set by fake-tmux.
const (
	envTmuxLog   = "FAKE_TMUX_LOG"   // where each invocation's argv is appended
	envTmuxReply = "FAKE_TMUX_REPLY" // the session name to print, or fail, or hang
)

// Tmux is the fake `tmux` program. It appends its argv as one line to
// $FAKE_TMUX_LOG, then acts on $FAKE_TMUX_REPLY:
//
//	fail   print tmux's "no server running" on stderr, exit 1
//	hang   write its pid to $FAKE_TMUX_LOG.pids, hang
//	NAME   print NAME, as `display-message -p '#{session_name}'` does
//
// A test binary runs it when invoked under the name tmux (see TestMain).
func Tmux() {
	log := os.Getenv(envTmuxLog)
	if log != "" {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, quoteArgv(append([]string{"tmux"}, os.Args[1:]...)))
			f.Close()
		}
	}
	switch reply := os.Getenv(envTmuxReply); reply {
	case "fail":
		fmt.Fprintln(os.Stderr, "no server running on /tmp/tmux-1000/default")
		os.Exit(1)
	case "hang":
		os.WriteFile(log+".pids", fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644)
		time.Sleep(time.Hour)
	default:
		fmt.Println(reply)
	}
}

// cmdFakeTmux: fake-tmux SESSION|fail|hang
// Puts a fake tmux first on PATH; its argv log is $WORK/tmux.got.
func cmdFakeTmux(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fake-tmux SESSION|fail|hang")
	}
	bin := ts.MkAbs(".fakebin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	if err := InstallAs(filepath.Join(bin, "tmux")); err != nil {
		ts.Fatalf("install fake tmux: %v", err)
	}
	if !strings.HasPrefix(ts.Getenv("PATH"), bin+string(os.PathListSeparator)) {
		ts.Setenv("PATH", bin+string(os.PathListSeparator)+ts.Getenv("PATH"))
	}
	ts.Setenv(envTmuxLog, ts.MkAbs("tmux.got"))
	ts.Setenv(envTmuxReply, args[0])
}

// cmdEscaped: escaped FILE prints FILE with every control byte but tab
// written as a Go escape (\r, \n, \x1b, …), so that a golden shows a
// terminal log's line ends and escape sequences exactly. The golden's own
// lines are layout, not content: one ends after each \n and after each
// string terminator (\x1b\, which ends coral-pulse's every tag), and at the
// end of the file.
func cmdEscaped(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: escaped FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	var out strings.Builder
	for i, c := range b {
		switch {
		case c == '\r':
			out.WriteString(`\r`)
		case c == '\n':
			out.WriteString("\\n\n")
		case c == '\\' && i > 0 && b[i-1] == 0x1b:
			out.WriteString("\\\n")
		case c == '\t' || c >= 0x20 && c != 0x7f:
			out.WriteByte(c)
		default:
			fmt.Fprintf(&out, `\x%02x`, c)
		}
	}
	if s := out.String(); s != "" && !strings.HasSuffix(s, "\n") {
		out.WriteByte('\n')
	}
	fmt.Fprint(ts.Stdout(), out.String())
}

// NoCoral is why a test of Coral skips on Windows: Coral runs its agents in
// tmux sessions and reads their logs there, on Linux and macOS; on Windows,
// coral-pulse costs nothing (TestNoWindowsEnd).
const NoCoral = "Coral lives with tmux, on Linux and macOS: no Windows end"

// Condition answers the suite's own testscript conditions:
//
//	[coral-free-tmp]  /tmp holds no Coral log (*_coral_*.log): a script may
//	                  assert that coral-pulse found none, which a machine
//	                  running Coral would contradict.
//	[coucou-free-run] /run/user/<uid>/coucou.sock is not there: a script may
//	                  assert that nb-hook, without $XDG_RUNTIME_DIR, looks
//	                  elsewhere, which a machine running Coucou contradicts.
func Condition(cond string) (bool, error) {
	switch cond {
	case "sshd":
		return sshdCondition()
	case "coral-free-tmp":
		logs, err := filepath.Glob("/tmp/*_coral_*.log")
		return err == nil && len(logs) == 0, nil
	case "coucou-free-run":
		_, err := os.Lstat(fmt.Sprintf("/run/user/%d/coucou.sock", os.Getuid()))
		return errors.Is(err, fs.ErrNotExist), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
