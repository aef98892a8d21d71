package hookwire_test

import (
	"encoding/json"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/combined"
	"github.com/hookwire/hookwire/internal/coral"
	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/trailboss"
	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/vpet"
)

// binaries is the suite. A new binary joins the golden tests, the hostile
// input matrix and the latency benchmark by adding a row here and one in
// hostileTargets.
var binaries = map[string]func() hook.Binary{
	"pulse-emit":     pulse.Emit,
	"pulse-claude":   pulse.Claude,
	"nb-hook":        coucou.Relay,
	"trailboss-hook": trailboss.Hook,
	"vpet-notify":    vpet.Notify,
	"coral-pulse":    coral.Pulse,
}

// raceOptions stops a -race build from sleeping a second at exit (its
// default, to catch late reports): the binaries under test are such builds,
// and the deadline tests would measure the sleep.
const raceOptions = "atexit_sleep_ms=0"

var update = flag.Bool("u", false, "update testscript goldens in place")

func TestMain(m *testing.M) {
	// The fake noctalia is this test binary under another name. It is not
	// registered with testscript, which would put it on every script's PATH:
	// a script asks for it with fake-noctalia, and its absence is a case too.
	if filepath.Base(os.Args[0]) == "noctalia" {
		testkit.Noctalia()
		os.Exit(0)
	}
	if filepath.Base(os.Args[0]) == "tmux" {
		testkit.Tmux()
		os.Exit(0)
	}
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "argv-echo" {
		// A shell that prints how it was called (windows_shell_test.go).
		json.NewEncoder(os.Stdout).Encode(os.Args[1:])
		os.Exit(0)
	}
	if filepath.Base(os.Args[0]) == "foreign-listener" {
		testkit.ForeignListenerMain() // hostile_files_test.go
	}
	cmds := map[string]func(){
		// probe sends one request through the runtime: it exercises the
		// fakes and transports that no binary uses yet.
		"probe": func() { hook.Main(testkit.Probe()) },
	}
	for name, bin := range binaries {
		cmds[name] = func() { testSeams(); hook.Main(bin()) }
	}
	cmds["hookwire"] = func() { testSeams(); combined.Main() }
	testscript.Main(testkit.CleanupAfter(m), cmds)
}

// testSeams lets a script play what the machine cannot: FAKE_PEER_UID makes
// every socket's server appear to run as that uid (another user's socket).
// It exists in the test binary only.
func testSeams() {
	// FAKE_WRAP_ELAPSED is how long every wrapped command took, for text
	// that says so.
	if d, err := time.ParseDuration(os.Getenv("FAKE_WRAP_ELAPSED")); err == nil {
		hook.Elapsed = func(time.Time) time.Duration { return d }
	}
	// FAKE_REMOTE_BACKOFF is hookwire remote's first wait between
	// connections (a reconnect in a script takes no second), and $BIN/hookwire
	// the path a service it installs runs.
	if d, err := time.ParseDuration(os.Getenv("FAKE_REMOTE_BACKOFF")); err == nil {
		combined.RemoteBackoff = d
	}
	combined.Executable = func() (string, error) { return filepath.Join(os.Getenv("BIN"), "hookwire"), nil }
	if v := os.Getenv("FAKE_PEER_UID"); v != "" {
		uid, _ := strconv.Atoi(v)
		transport.PeerUID = func(net.Conn) (int, error) { return uid, nil }
	}
}

func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                testkit.Commands(),
		Condition:           testkit.Condition,
		Setup: func(env *testscript.Env) error {
			// The suite's commands skip a script that meets a limitation
			// of the system (no Unix sockets under Wine, a surface with no
			// Windows end), naming it.
			testkit.KeepT(env)
			// Nothing from the developer's own setup leaks in.
			for _, k := range []string{"PULSE_TARGET", "PULSE_PID", "PULSE_DRYRUN", "PULSE_LOG",
				"NOCTALIA_PULSE_DRYRUN", "TMUX_PANE", "XDG_RUNTIME_DIR", "COUCOU_SOCKET",
				"COUCOU_DECISION_TIMEOUT", "TERM_PROGRAM", "ITERM_SESSION_ID", "TERM_SESSION_ID",
				"__CFBundleIdentifier", "TERMINAL_EMULATOR", "WT_SESSION", "VSCODE_PID",
				"CLAUDE_CODE_SSE_PORT", "FAKE_WRAP_ELAPSED", "CLAUDE_CODE_ENTRYPOINT", "GEMINI_SESSION_ID",
				"TRAILBOSS_URL", "TRAILBOSS_DAEMON_URL", "CLAUDE_CODE_SESSION_ID",
				"VPET_NOTIFY_SOCKET", "VPET_NOTIFY_TOKEN", "VPET_NOTIFY_TOKEN_FILE", "VPET_NOTIFY_EVENTS",
				"AGENTICA_NOTIFY_SOCKET", "AGENTICA_NOTIFY_TOKEN", "AGENTICA_NOTIFY_TOKEN_FILE",
				"CODEX_HOME", "COPILOT_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
				env.Setenv(k, "")
			}
			// The terminal go test runs in (if any) is not the scripts' business.
			env.Setenv("VPET_NOTIFY_TTY", "none")
			// Nor does the Coral session a developer may run the tests in, and a
			// script that starts no fake Coral posts to a closed port, not to
			// the developer's Coral on 8420.
			for _, k := range []string{"TMUX", "CORAL_SESSION_NAME", "CORAL_PORT"} {
				env.Setenv(k, "")
			}
			// Nor the CI job or terminal pane that would name a script's session.
			for _, k := range agent.ScriptVars() {
				env.Setenv(k, "")
			}
			env.Setenv("CORAL_URL", "http://127.0.0.1:9")
			// Nor where the developer's agents keep their settings (each
			// agent's config home variable), nor setup's state, nor where
			// setup looks for Trail Boss, Coral and noctalia's plugins.
			for _, d := range agent.Installable() {
				if d.Settings.HomeVar != "" {
					env.Setenv(d.Settings.HomeVar, "")
				}
			}
			for _, k := range []string{"XDG_STATE_HOME", "XDG_DATA_HOME", "TRAILBOSS_DATA_DIR", "CORAL_DATA_DIR", "CORAL_DIR"} {
				env.Setenv(k, "")
			}
			// PATH holds the suite and nothing else, so that a real noctalia
			// on a developer's machine never answers a test; fake-noctalia
			// adds the fake. $BIN lets a script rebuild PATH.
			bin, err := exec.LookPath("pulse-emit")
			if err != nil {
				return err
			}
			env.Setenv("BIN", filepath.Dir(bin))
			env.Setenv("PATH", filepath.Dir(bin))
			env.Setenv("XDG_RUNTIME_DIR", filepath.Join(env.WorkDir, "run"))
			// $WORK as it appears inside a JSON string (a Windows path's
			// backslashes doubled), for goldens that record a cwd.
			work, _ := json.Marshal(env.WorkDir)
			env.Setenv("WORK_JSON", string(work[1:len(work)-1]))
			// $WORK and $BIN inside a regular expression (a Windows path's
			// backslashes would be escapes there).
			env.Setenv("WORK_RE", regexp.QuoteMeta(env.WorkDir))
			env.Setenv("BIN_RE", regexp.QuoteMeta(filepath.Dir(bin)))
			env.Setenv("GORACE", raceOptions)
			// hookwire waits for every delivery, as before the grace: the
			// goldens count each surface's lines and read what it got once
			// the hook returned, and under the race detector on a loaded
			// machine a delivery can outlast the grace. The hookwire_courier
			// scripts set it to test the hand-over.
			env.Setenv(hook.EnvGrace, "0")
			env.Setenv("UID", strconv.Itoa(os.Getuid()))
			// The machine's name, which hookwire relay's Hello carries.
			host, _ := os.Hostname()
			env.Setenv("HOST", host)
			return os.MkdirAll(filepath.Join(env.WorkDir, "run"), 0o700)
		},
	})
}
