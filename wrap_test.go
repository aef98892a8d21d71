//go:build unix

package hookwire_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
)

// result is everything a caller can see of a command's run.
type result struct {
	stdout, stderr []byte
	code           int
	signal         syscall.Signal // 0 unless it died of one
}

func run(t *testing.T, argv []string, env []string, stdin []byte) result {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	r := result{stdout: out.Bytes(), stderr: errb.Bytes(), code: cmd.ProcessState.ExitCode()}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
		r.signal = ws.Signal()
	}
	return r
}

// TestWrapTransparent runs commands directly and under every binary's wrap,
// with the surface absent and (for nb-hook) hanging, and wants the same
// bytes on stdout and stderr and the same exit: a status, or death by the
// same signal (which a shell reports as 128+N).
func TestWrapTransparent(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := wrapDir(t)
	blob := make([]byte, 256<<10)
	rand.Read(blob)
	blobPath := filepath.Join(dir, "blob")
	os.WriteFile(blobPath, blob, 0o600)

	cases := []struct {
		name  string
		argv  []string
		stdin []byte
	}{
		{"exit 0", []string{"/bin/sh", "-c", "echo out; echo err >&2"}, nil},
		{"exit 3", []string{"/bin/sh", "-c", "printf partial; echo oops >&2; exit 3"}, nil},
		{"killed", []string{"/bin/sh", "-c", "echo before; kill -TERM $$; echo after"}, nil},
		{"interrupted", []string{"/bin/sh", "-c", "kill -INT $$"}, nil},
		{"stdin", []string{"/bin/cat"}, []byte("line one\nno newline at the end")},
		{"binary stdout", []string{"/bin/cat", blobPath}, nil},
		{"not found", []string{"/nonexistent/cmd"}, nil},
	}
	env := append(baseEnv(dir), "PATH=/usr/bin:/bin")
	hanging := append(append(baseEnv(dir), "PATH=/usr/bin:/bin"), coucouTarget(t, dir, "hang")...)
	for _, tc := range cases {
		var direct result
		if tc.name != "not found" {
			direct = run(t, tc.argv, env, tc.stdin)
		}
		for name := range binaries {
			for _, surface := range []string{"absent", "hanging"} {
				if surface == "hanging" && name != "nb-hook" {
					continue
				}
				t.Run(tc.name+"/"+name+"/"+surface, func(t *testing.T) {
					e := env
					if surface == "hanging" {
						e = hanging
					}
					got := run(t, append([]string{filepath.Join(bin, name), "wrap", "--"}, tc.argv...), e, tc.stdin)
					if tc.name == "not found" {
						// A shell's answer, in wrap's words.
						if got.code != 127 || len(got.stdout) > 0 || !bytes.Contains(got.stderr, []byte("/nonexistent/cmd")) {
							t.Errorf("got status %d, stdout %q, stderr %q; want 127 and the name on stderr", got.code, got.stdout, got.stderr)
						}
						return
					}
					if got.code != direct.code || got.signal != direct.signal {
						t.Errorf("status %d signal %v, want %d signal %v", got.code, got.signal, direct.code, direct.signal)
					}
					if !bytes.Equal(got.stdout, direct.stdout) {
						t.Errorf("stdout differs: %d bytes, want %d (%q…)", len(got.stdout), len(direct.stdout), clip(got.stdout))
					}
					if !bytes.Equal(got.stderr, direct.stderr) {
						t.Errorf("stderr %q, want %q", got.stderr, direct.stderr)
					}
				})
			}
		}
	}
}

func clip(b []byte) []byte { return b[:min(len(b), 80)] }

// TestWrapForwardsSignals: a signal sent to wrap (a CI runner cancelling a
// job, timeout(1)) reaches the command, and wrap exits with the status the
// command chose.
func TestWrapForwardsSignals(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGTERM, "TERM", 7}, {syscall.SIGINT, "INT", 9}, {syscall.SIGHUP, "HUP", 11}, {syscall.SIGUSR1, "USR1", 12}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := wrapDir(t)
			script := "trap 'exit " + itoa(tc.code) + "' " + tc.name + "; echo ready; while :; do sleep 0.05; done"
			cmd := exec.Command(filepath.Join(bin, "trailboss-hook"), "wrap", "--", "/bin/sh", "-c", script)
			cmd.Env = append(baseEnv(dir), "PATH=/usr/bin:/bin")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // to clean up after a failure
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "ready\n" {
				t.Fatalf("got %q", line)
			}
			cmd.Process.Signal(tc.sig)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				// Not a time limit on wrap: the command loops until it
				// gets the signal, so it never came.
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Process.Kill()
				<-done
				t.Fatalf("the command never got SIG%s", tc.name)
			}
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit %d, want %d: the command did not get SIG%s", got, tc.code, tc.name)
			}
		})
	}
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// TestWrapTerminal: under a pseudo-terminal the command's stdin, stdout and
// stderr are still that terminal, and what it writes there is what it
// writes run directly.
func TestWrapTerminal(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := wrapDir(t)
	script := `for fd in 0 1 2; do if [ -t $fd ]; then echo "$fd tty"; else echo "$fd not"; fi; done; printf 'bytes\001\033[0m\n'`
	underPTY := func(argv ...string) string {
		ptmx, tty := openPTYPair(t)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(baseEnv(dir), "PATH=/usr/bin:/bin")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close() // the master reads EOF (EIO) once the command's copies close
		got, _ := io.ReadAll(ptmx)
		cmd.Wait()
		return string(got)
	}
	direct := underPTY("/bin/sh", "-c", script)
	if !strings.Contains(direct, "0 tty\r\n1 tty\r\n2 tty\r\n") {
		t.Fatalf("the direct run is not on a terminal: %q", direct)
	}
	if got := underPTY(filepath.Join(bin, "coral-pulse"), "wrap", "--", "/bin/sh", "-c", script); got != direct {
		t.Errorf("wrapped: %q\nwant     %q", got, direct)
	}
}

// BenchmarkWrap measures what wrap adds: spawn to exit of `wrap -- true`
// against `true` (and against starting the binary at all, `--version`),
// and spawn to the first byte of output of `wrap -- echo x` against
// `echo x`, with the surface absent and hanging (p50 and p95 in
// milliseconds). Each run is followed by a pause, not measured, in which the
// previous run's relay finishes: a command is not wrapped hundreds of times
// a second, and the runs should not queue behind each other's deliveries.
//
//	go test -run '^$' -bench Wrap -benchtime 300x .
func BenchmarkWrap(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	dir := wrapDir(b)
	env := append(baseEnv(dir), "PATH=/usr/bin:/bin")
	hanging := append(append([]string{}, env...), coucouTarget(b, dir, "hang")...)
	wrap := []string{filepath.Join(bin, "nb-hook"), "wrap", "--"}
	for _, c := range []struct {
		name        string
		argv        []string
		env         []string
		firstOutput bool
	}{
		{"exit/true", []string{"/bin/true"}, env, false},
		{"exit/binary-start", []string{filepath.Join(bin, "nb-hook"), "--version"}, env, false},
		{"exit/wrap-true/absent", append(wrap, "/bin/true"), env, false},
		{"exit/wrap-true/hanging", append(wrap, "/bin/true"), hanging, false},
		{"first-output/echo", []string{"/bin/echo", "x"}, env, true},
		{"first-output/wrap-echo/absent", append(wrap, "/bin/echo", "x"), env, true},
		{"first-output/wrap-echo/hanging", append(wrap, "/bin/echo", "x"), hanging, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Env = c.env
				out, _ := cmd.StdoutPipe()
				start := time.Now()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				if c.firstOutput {
					var one [1]byte
					if _, err := out.Read(one[:]); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
				}
				io.Copy(io.Discard, out)
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				if !c.firstOutput {
					times = append(times, time.Since(start))
				}
				time.Sleep(30 * time.Millisecond)
			}
			slices.Sort(times)
			pct := func(p float64) float64 {
				return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestWrapControlC: ^C in a terminal reaches the whole foreground group, the
// command and wrap alike. wrap does not send it a second time, survives it
// to tell the surface the run was interrupted, and then dies of it as the
// command did, so that the shell sees a ^C.
func TestWrapControlC(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := wrapDir(t)
	ptmx, tty := openPTYPair(t)
	// cat, not a shell: a shell that has not forked its command yet when
	// ^C comes defers the signal, waits for the command, and goes on.
	cmd := exec.Command(filepath.Join(bin, "nb-hook"), "wrap", "--session", "c1", "--", "/bin/cat")
	cmd.Env = append(append(baseEnv(dir), "PATH=/usr/bin:/bin", "PULSE_LOG="+filepath.Join(dir, "debug.log")), coucouTarget(t, dir, "ok")...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	tty.Close()
	// The line, echoed by the terminal, then again by cat: it is reading.
	ptmx.Write([]byte("ready\n"))
	r := bufio.NewReader(ptmx)
	for _, want := range []string{"ready\r\n", "ready\r\n"} {
		if line, _ := r.ReadString('\n'); line != want {
			t.Fatalf("got %q, want %q", line, want)
		}
	}
	ptmx.Write([]byte{3}) // ^C
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("^C did not end the run")
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("wrap ended with %v, want death by SIGINT", cmd.ProcessState)
	}
	// The relay runs the run's events one after another, each with a
	// deadline of hook.Budget and two seconds: on a loaded machine the last
	// may come well after wrap's death, and 5 s was once too short.
	got := filepath.Join(dir, "coucou.got")
	for deadline := time.Now().Add(4 * (hook.Budget + 2*time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(got); bytes.Contains(b, []byte(`"last_assistant_message":"interrupted after`)) {
			return
		}
	}
	b, _ := os.ReadFile(got)
	log, _ := os.ReadFile(filepath.Join(dir, "debug.log"))
	t.Errorf("the app was not told of the interruption; it got:\n%s\nlog:\n%s", b, log)
}

// TestWrapLongCommandLine: a command line of 500 KiB still reaches the
// surface, clipped: the relay's events carry it in one argument, which
// Linux caps at 128 KiB.
func TestWrapLongCommandLine(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := wrapDir(t)
	argv := []string{filepath.Join(bin, "nb-hook"), "wrap", "--session", "l1", "--", "/bin/true"}
	for range 10 {
		argv = append(argv, strings.Repeat("x", 50<<10))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(baseEnv(dir), "PATH=/usr/bin:/bin"), coucouTarget(t, dir, "ok")...)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("%v: %q", err, out)
	}
	got := filepath.Join(dir, "coucou.got")
	var b []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ = os.ReadFile(got); bytes.Count(b, []byte("\n")) >= 3 {
			break
		}
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"hook_event_name":"UserPromptSubmit"`) {
		t.Fatalf("got %d lines:\n%.300s", len(lines), b)
	}
	if n := len(lines[1]); n > 4400 || !strings.Contains(lines[1], `xxx…`) {
		t.Errorf("the prompt line is %d bytes, want it clipped near 4 KiB with an ellipsis", n)
	}
}

// wrapDir is a test's directory for a wrapped command's state and targets.
// wrap's relay outlives the command by design, and may still be writing
// its state there when the test ends: removing it waits for that (up to
// 10 s, where t.TempDir would fail the test at once).
func wrapDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "wrap-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if err := os.RemoveAll(dir); err == nil || time.Now().After(deadline) {
				return
			}
		}
	})
	return dir
}
