package hookwire_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/testkit/afunix"
)

// A hostileTarget says how to run one binary realistically, and how to make
// its target healthy, hung or absent. Adding a binary to the suite means
// adding a row here (and one in binaries).
type hostileTarget struct {
	args        []string // an ordinary hook invocation
	unknownArgs []string // an invocation naming an event nobody maps
	// setup prepares the target in dir ("ok", "hang" or "refuse") and
	// returns the environment the binary runs with.
	setup func(t testing.TB, dir, mode string) []string
	// delivered counts what the healthy target received.
	delivered func(dir string) int
	// needsPayload says the binary relays the agent's payload and has
	// nothing to send without one: it keeps only the cases that have one.
	needsPayload bool
}

var hostileTargets = map[string]hostileTarget{
	"pulse-emit": {
		args:        []string{"turn_end", "-"},
		unknownArgs: []string{"no_such_event", "s1"},
		setup:       noctaliaTarget,
		delivered:   noctaliaDelivered,
	},
	"pulse-claude": {
		args:      []string{"turn_end"}, // as claude-companion's settings snippet calls it
		setup:     noctaliaTarget,
		delivered: noctaliaDelivered,
	},
	"nb-hook": {
		setup:        coucouTarget,
		delivered:    func(dir string) int { return lines(filepath.Join(dir, "coucou.got")) },
		needsPayload: true,
	},
	"trailboss-hook": {
		args:        []string{"Stop"}, // the event named as Antigravity's hooks.json must
		unknownArgs: []string{"NoSuchEvent"},
		setup:       trailbossTarget, // trailboss_test.go
		delivered:   trailbossDelivered,
	},
	"vpet-notify": {
		args:      []string{"Stop"}, // named as a settings line may; the payload's name wins
		setup:     vpetTarget,       // vpet_test.go
		delivered: vpetDelivered,
	},
	"coral-pulse": {
		args:      []string{"Stop"}, // the event named, as for Antigravity
		setup:     coralTarget,
		delivered: coralDelivered,
	},
	// The five surfaces from one process: every target up, hanging or
	// refusing at once.
	"hookwire": {
		args: []string{"--surfaces", "nb-hook,pulse-claude,trailboss-hook,vpet-notify,coral-pulse", "Stop"},
		setup: func(t testing.TB, dir, mode string) []string {
			var env []string
			for _, setup := range []func(testing.TB, string, string) []string{coucouTarget, noctaliaTarget, trailbossTarget, vpetTarget, coralTarget} {
				env = append(env, setup(t, dir, mode)...)
			}
			return env
		},
		delivered: func(dir string) int {
			return lines(filepath.Join(dir, "coucou.got")) + noctaliaDelivered(dir) + trailbossDelivered(dir) + vpetDelivered(dir) + coralDelivered(dir)
		},
	},
}

// onWindows is a target as a Windows machine has it: Coucou on its named
// pipe and Trail Boss's daemon over HTTP as elsewhere; Pulse, VPet and
// Coral have no Windows end, so their binaries find nothing there, which
// must cost nothing (delivered is nil: nothing to lose).
func onWindows(name string, h hostileTarget) hostileTarget {
	switch name {
	case "pulse-emit", "pulse-claude", "vpet-notify", "coral-pulse":
		h.setup = func(testing.TB, string, string) []string { return nil }
		h.delivered = nil
	case "hookwire":
		h.setup = func(t testing.TB, dir, mode string) []string {
			return append(coucouTarget(t, dir, mode), trailbossTarget(t, dir, mode)...)
		}
		h.delivered = func(dir string) int { return lines(filepath.Join(dir, "coucou.got")) + trailbossDelivered(dir) }
	}
	return h
}

func lines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// coucouTarget is a Coucou app on a Unix socket in this process: it records
// each line in dir/coucou.got and acknowledges.
func coucouTarget(t testing.TB, dir, mode string) []string {
	path := filepath.Join(dir, "coucou.sock")
	if runtime.GOOS == "windows" {
		// Coucou's Windows end: a named pipe (Wine has no AF_UNIX).
		path = `\\.\pipe\hookwire-test-` + randomUUID(t)
	}
	var mu sync.Mutex
	answer := `{"ok":true}`
	if mode == "allow" { // a person allows every approval at once
		answer, mode = "allow", ""
	}
	serveUnix(t, path, mode, func(c net.Conn) {
		line, err := bufio.NewReader(c).ReadBytes('\n')
		if err != nil {
			return
		}
		mu.Lock()
		if f, err := os.OpenFile(filepath.Join(dir, "coucou.got"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			f.Write(line)
			f.Close()
		}
		mu.Unlock()
		c.Write([]byte(answer + "\n"))
	})
	return []string{"COUCOU_SOCKET=" + path}
}

// serveUnix runs a stand-in target on a Unix socket (or, for a path
// \\.\pipe\NAME, a Windows named pipe) in this process, for tests that run
// the real binaries as subprocesses. mode "refuse" leaves a socket file
// that nobody listens on, as a crashed app does (no pipe at all: an app
// that is not running); "hang" accepts connections and never reads them;
// otherwise serve handles each connection. Everything stops when the test
// ends.
func serveUnix(t testing.TB, path, mode string, serve func(c net.Conn)) {
	var ln net.Listener
	var err error
	if strings.HasPrefix(path, `\\.\pipe\`) {
		if mode == "refuse" {
			return
		}
		ln, err = testkit.ListenPipe(path)
	} else {
		afunix.Need(t)
		ln, err = net.Listen("unix", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	if mode == "refuse" {
		ln.Close()
		return
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(quit); ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				go func() { <-quit; c.Close() }()
				if mode == "hang" {
					<-quit
					return
				}
				serve(c)
			})
		}
	})
}

func noctaliaDelivered(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "noctalia.got"))
	return bytes.Count(b, []byte("\n"))
}

// noctaliaTarget puts the fake noctalia (or none) on PATH.
func noctaliaTarget(t testing.TB, dir, mode string) []string {
	if runtime.GOOS == "windows" {
		t.Skip(testkit.NoPulse)
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if mode != "refuse" {
		if err := testkit.InstallAs(filepath.Join(bin, "noctalia")); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"PATH=" + bin, "FAKE_NOCTALIA_MODE=" + mode, "FAKE_NOCTALIA_LOG=" + filepath.Join(dir, "noctalia.got")}
}

// A hostileCase is one thing an agent, a user or a machine can do to a hook.
type hostileCase struct {
	name   string
	stdin  func(t *testing.T) (io.Reader, *os.File) // a reader to pipe in, or a file to hand over
	target string                                   // ok, hang, refuse
	args   func(h hostileTarget) []string
	env    func(t *testing.T) []string
	// closeStdin runs the binary with file descriptor 0 closed.
	closeStdin bool
	// payload says stdin holds an agent's JSON object (whole or cut).
	payload bool
	// keep says the event must still reach a healthy target.
	keep bool
}

func text(s string) func(*testing.T) (io.Reader, *os.File) {
	return func(*testing.T) (io.Reader, *os.File) { return strings.NewReader(s), nil }
}

const goodPayload = `{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","hook_event_name":"Stop","cwd":"/tmp","last_assistant_message":"done"}`

var hostileCases = []hostileCase{
	{name: "healthy", payload: true, stdin: text(goodPayload), keep: true},
	{name: "empty stdin", stdin: text(""), keep: true},
	{name: "whitespace", stdin: text(" \n\t\r\n"), keep: true},
	{name: "null", stdin: text("null"), keep: true},
	{name: "array", stdin: text("[]"), keep: true},
	{name: "JSON string", stdin: text(`"str"`), keep: true},
	{name: "invalid JSON", stdin: text(`{"session_id": "x",,}`), keep: true},
	{name: "invalid UTF-8", payload: true, stdin: text("{\"session_id\":\"\xff\xfe\xfd\",\"hook_event_name\":\"\xc3\x28\"}"), keep: true},
	{name: "BOM", payload: true, stdin: text("\xEF\xBB\xBF" + goodPayload), keep: true},
	{name: "50 MiB stdin", payload: true, stdin: func(*testing.T) (io.Reader, *os.File) {
		return io.MultiReader(strings.NewReader(`{"session_id":"big","tool_input":{"content":"`),
			io.LimitReader(repeatReader('x'), 50<<20), strings.NewReader(`"}}`)), nil
	}, keep: true},
	{name: "deeply nested, cut", payload: true, stdin: func(*testing.T) (io.Reader, *os.File) {
		// Cut at the stdin cap inside a value nested millions deep: parsing
		// must stay linear and bounded, not recurse into the watchdog.
		return io.MultiReader(strings.NewReader(`{"session_id":"deep","hook_event_name":"Stop","x":`),
			io.LimitReader(repeatReader('['), 5<<20)), nil
	}, keep: true},
	{name: "stdin never closed", stdin: func(t *testing.T) (io.Reader, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return nil, r
	}, keep: true},
	{name: "stdin never closed after JSON", payload: true, stdin: func(t *testing.T) (io.Reader, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(goodPayload)
		t.Cleanup(func() { r.Close(); w.Close() })
		return nil, r
	}, keep: true},
	{name: "terminal on stdin", stdin: func(t *testing.T) (io.Reader, *os.File) { return nil, openPTY(t) }, keep: true},
	{name: "stdin closed", stdin: text(""), closeStdin: true, keep: true},
	{name: "unknown flag", stdin: text(goodPayload), keep: true, payload: true,
		args: func(h hostileTarget) []string { return append([]string{"--no-such-flag"}, h.args...) }},
	{name: "unknown event", stdin: text(`{"hook_event_name":"NoSuchEvent","session_id":"s1"}`),
		args: func(h hostileTarget) []string { return h.unknownArgs }},
	{name: "target hangs", stdin: text(goodPayload), target: "hang"},
	{name: "target refuses", stdin: text(goodPayload), target: "refuse"},
	{name: "HOME unset", payload: true, stdin: text(goodPayload), keep: true,
		env: func(*testing.T) []string { return []string{"HOME="} }},
	{name: "unwritable state dir", payload: true, stdin: text(goodPayload), keep: true, env: func(t *testing.T) []string {
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o600)
		return []string{"XDG_RUNTIME_DIR=" + filepath.Join(file, "run"), "TMPDIR=" + filepath.Join(file, "tmp")}
	}},
	{name: "unwritable debug log", payload: true, stdin: text(goodPayload), keep: true,
		env: func(*testing.T) []string { return []string{hook.EnvLog + "=/dev/null/debug.log"} }},
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// margin is what the deadline may be overrun by, for process start and exit
// on a loaded machine. The deadline itself includes the runtime's reserve.
const margin = 700 * time.Millisecond

func TestHostileInputs(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range hostileTargets {
		if runtime.GOOS == "windows" {
			h = onWindows(name, h)
		}
		for _, tc := range hostileCases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				if tc.closeStdin && runtime.GOOS == "windows" {
					t.Skip("a closed descriptor 0 is a Unix state: a Windows process is always given a standard input handle")
				}
				dir := t.TempDir()
				mode := tc.target
				if mode == "" {
					mode = "ok"
				}
				args := h.args
				if tc.args != nil {
					args = tc.args(h)
				}
				cmd := exec.Command(filepath.Join(bin, name), args...)
				if tc.closeStdin {
					cmd = exec.Command("/bin/sh", append([]string{"-c", `exec "$0" "$@" <&-`, filepath.Join(bin, name)}, args...)...)
				}
				cmd.Env = append(baseEnv(dir), h.setup(t, dir, mode)...)
				if tc.env != nil {
					cmd.Env = append(cmd.Env, tc.env(t)...)
				}
				r, f := tc.stdin(t)
				if f != nil {
					cmd.Stdin = f
				} else if r != nil {
					cmd.Stdin = r
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				start := time.Now()
				err := cmd.Run()
				took := time.Since(start)

				if err != nil {
					t.Errorf("exit: %v", err)
				}
				if stdout.Len() > 0 {
					t.Errorf("stdout: %q", stdout.Bytes())
				}
				if stderr.Len() > 0 {
					t.Errorf("stderr: %q", stderr.Bytes())
				}
				if took > hook.Budget+margin {
					t.Errorf("took %v, deadline %v", took, hook.Budget)
				}
				if tc.keep && h.delivered != nil && (tc.payload || !h.needsPayload) && h.delivered(dir) == 0 {
					t.Errorf("the event was lost")
				}
				if mode == "hang" {
					// Each fake that hangs lists its pids in a *.pids file.
					files, _ := filepath.Glob(filepath.Join(dir, "*.pids"))
					for _, file := range files {
						pids, _ := os.ReadFile(file)
						for _, p := range strings.Fields(string(pids)) {
							pid, err := strconv.Atoi(p)
							if err == nil && !testkit.WaitDead(pid, 2*time.Second) {
								t.Errorf("the hung target (pid %d) outlived the hook", pid)
							}
						}
					}
				}
				t.Logf("%v", took.Round(time.Millisecond))
			})
		}
	}
}

// baseEnv is a clean environment: nothing from the developer's shell.
func baseEnv(dir string) []string {
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o700)
	// USERPROFILE, TMP and TEMP are Windows's HOME and TMPDIR.
	return []string{"HOME=" + dir, "USERPROFILE=" + dir, "XDG_RUNTIME_DIR=" + run, "TMPDIR=" + dir, "TMP=" + dir, "TEMP=" + dir,
		"GORACE=" + raceOptions}
}
