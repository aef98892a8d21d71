// Command livebench measures what hookwire's hooks cost a real agent
// session: each pinned agent (Claude Code, Gemini CLI, Codex, Copilot CLI)
// runs the same scripted session offline, against the scripted model API of
// internal/testkit/modelapi, in a fresh HOME (its XDG_RUNTIME_DIR on tmpfs
// when /dev/shm is one, as a desktop's is: runtimeDir), with
//
//   - none:  no hooks at all;
//   - true:  the five agent binaries' hooks, as their own `install --agent X`
//     writes them, with /bin/true in their place (the floor: the agent
//     spawning a hook at all);
//   - LABEL: the five binaries' hooks, from the binaries in DIR, for each
//     -bin LABEL=DIR (e.g. before=/tmp/old after=/tmp/new);
//   - with -combined, hookwire and truec: the one hookwire binary (of the
//     last -bin) serving the five surfaces, as `hookwire install --agent X`
//     writes it, and its hooks with /bin/true in its place; goc, the same
//     hooks with an empty static Go binary in its place (the least any Go
//     hook costs a session).
//
// Runs are interleaved (every arm once per round, in an order that rotates)
// so that a noisy neighbour on a shared machine weighs on every arm alike.
// It prints, per agent, the median session time of each arm and the
// overhead of each binary set over the /bin/true hooks, and the p50/p95 of
// each invocation's duration as the binaries' own debug log (PULSE_LOG)
// records it. The surfaces are up: a noctalia that exits at once, a Coucou
// socket, a Trail Boss daemon, a VPet pet and a Coral session, all answering
// at once, so that every binary does its whole work.
//
//	go run ./scripts/livebench -runs 7 -bin before=/tmp/hw-before -bin after=/tmp/hw-after
//
// Issue 42's measurement, which writes its tables into docs/performance.md
// (and README.md, when it holds the marks) with the date and the machine:
//
//	go run ./scripts/livebench -issue42 -write
//
// is -agents claude,gemini -tools 1 -five=false -combined -runs 15
// -invocations 300: a one-tool session through hookwire (the five
// surfaces) against the same hooks with /bin/true and with an empty static
// Go binary in its place, and each event's spawn-to-exit, hookwire's
// against an empty static Go binary's, interleaved, p50 and p95
// (invocations.go, summary.go). The per-event part alone, which needs no
// agent:
//
//	go run ./scripts/livebench -agents none -five=false -invocations 300
//
// The sessions need the agents installed under ~/.cache/hookwire/agents
// (see testdata/agents/README.md) and node on PATH. It is a measurement, not
// a test: it asserts nothing.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/testkit/modelapi"
)

const prompt = "Run the three hookwire steps."

var verbose bool

// binaries are the agent binaries a user with every surface installs.
var binaries = []string{"pulse-claude", "nb-hook", "trailboss-hook", "vpet-notify", "coral-pulse"}

type agentSpec struct {
	name     string // install's --agent
	pkg, exe string // ~/.cache/hookwire/agents/<pkg>/node_modules/.bin/<exe>
	wire     string
	steps    func(cwd string) []modelapi.Step
	setup    func(home, url string) error
	args     []string
	env      func(url string) []string
}

func step(tool string, input map[string]any) modelapi.Step {
	b, _ := json.Marshal(input)
	return modelapi.Step{Tool: tool, Input: b}
}

var agents = []agentSpec{
	{
		name: "claude", pkg: "anthropic-ai-claude-code@2.1.328", exe: "claude", wire: "anthropic",
		steps: func(cwd string) []modelapi.Step {
			notes := filepath.Join(cwd, "notes.txt")
			return []modelapi.Step{
				step("Bash", map[string]any{"command": "echo hookwire-step-one", "description": "Print a marker"}),
				step("Write", map[string]any{"file_path": notes, "content": "hookwire live notes\n"}),
				step("Read", map[string]any{"file_path": notes}),
			}
		},
		args: []string{"-p", prompt, "--model", "claude-sonnet-4-5", "--allowedTools", "Bash", "Write", "Read"},
		env: func(url string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=scripted", "DISABLE_TELEMETRY=1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
		},
	},
	{
		name: "gemini", pkg: "google-gemini-cli@0.61.0", exe: "gemini", wire: "gemini",
		steps: func(cwd string) []modelapi.Step {
			notes := filepath.Join(cwd, "notes.txt")
			return []modelapi.Step{
				step("run_shell_command", map[string]any{"command": "echo hookwire-step-one", "description": "Print a marker"}),
				step("write_file", map[string]any{"file_path": notes, "content": "hookwire live notes\n"}),
				step("read_file", map[string]any{"file_path": notes}),
			}
		},
		setup: func(home, url string) error {
			return writeFile(filepath.Join(home, ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`)
		},
		args: []string{"-p", prompt, "--model", "gemini-2.5-flash", "--yolo", "--skip-trust"},
		env: func(url string) []string {
			return []string{"GEMINI_API_KEY=scripted", "GOOGLE_GEMINI_BASE_URL=" + url}
		},
	},
	{
		name: "codex", pkg: "openai-codex@0.169.0", exe: "codex", wire: "openai",
		steps: func(cwd string) []modelapi.Step {
			return []modelapi.Step{
				step("exec_command", map[string]any{"cmd": "echo hookwire-step-one"}),
				step("exec_command", map[string]any{"cmd": "printf 'hookwire live notes\\n' > notes.txt"}),
				step("exec_command", map[string]any{"cmd": "cat notes.txt"}),
			}
		},
		setup: func(home, url string) error {
			return writeFile(filepath.Join(home, ".codex", "config.toml"), `model = "gpt-5.5"
model_provider = "scripted"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.scripted]
name = "scripted"
base_url = "`+url+`/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
`)
		},
		args: []string{"exec", "--skip-git-repo-check", "-s", "danger-full-access", "--dangerously-bypass-hook-trust", prompt},
		env:  func(string) []string { return []string{"SCRIPTED_API_KEY=scripted"} },
	},
	{
		name: "copilot", pkg: "github-copilot@1.0.102", exe: "copilot", wire: "anthropic",
		steps: func(cwd string) []modelapi.Step {
			notes := filepath.Join(cwd, "notes.txt")
			return []modelapi.Step{
				step("bash", map[string]any{"command": "echo hookwire-step-one", "description": "Print a marker"}),
				step("create", map[string]any{"path": notes, "file_text": "hookwire live notes\n"}),
				step("view", map[string]any{"path": notes}),
			}
		},
		args: []string{"-p", prompt, "-s", "--no-auto-update", "--allow-all-tools"},
		env: func(url string) []string {
			return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_BASE_URL=" + url,
				"COPILOT_PROVIDER_API_KEY=scripted", "COPILOT_MODEL=claude-sonnet-4.5"}
		},
	},
	{
		// A custom model in the user settings (install keeps it beside the
		// hooks it adds there), no login.
		name: "droid", pkg: "factory-cli@0.225.1", exe: "droid", wire: "anthropic",
		steps: func(cwd string) []modelapi.Step {
			notes := filepath.Join(cwd, "notes.txt")
			return []modelapi.Step{
				step("Execute", map[string]any{"command": "echo hookwire-step-one", "summary": "Print a hookwire marker", "riskLevel": "low", "riskLevelReason": "It only prints."}),
				step("Create", map[string]any{"file_path": notes, "content": "hookwire live notes\n"}),
				step("Read", map[string]any{"file_path": notes}),
			}
		},
		setup: func(home, url string) error {
			return writeFile(filepath.Join(home, ".factory", "settings.json"), `{"customModels": [{"model": "claude-sonnet-4-5", "displayName": "scripted",
  "baseUrl": "`+url+`", "apiKey": "scripted", "provider": "anthropic", "maxOutputTokens": 8192}]}
`)
		},
		args: []string{"exec", "-m", "custom:scripted-0", "--auto", "low", prompt},
		env:  func(string) []string { return nil },
	},
}

// An arm is one way of running the session: hooks from a directory of
// binaries, /bin/true in their place, or none.
type arm struct {
	label string
	dir   string // the binaries; "" for none
	// instead: the hooks of dir, with this command in the binaries'
	// place (/bin/true, or an empty static Go binary).
	instead string
	only    string // one binary installed instead of the five
	// combined: hookwire installed, serving the five surfaces.
	combined bool
	// skip: a set of binaries given only for the arms built from it.
	skip bool
}

type bins []string

func (b *bins) String() string     { return strings.Join(*b, ",") }
func (b *bins) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	runs := flag.Int("runs", 7, "rounds: each arm runs once per agent per round")
	only := flag.String("agents", "claude,gemini,codex,copilot,droid", "agents to run")
	out := flag.String("out", "", "write every run's figures to this JSON file")
	keep := flag.Bool("keep", false, "keep the work directory")
	flag.BoolVar(&verbose, "v", false, "print each session's output")
	one := flag.String("one", "", "also run with only this binary installed (arm one), and its hooks with /bin/true (arm true1), from the last -bin: what one process serving every surface would cost at least")
	combined := flag.Bool("combined", false, "also run with the one hookwire binary serving the five surfaces (arm hookwire), its hooks with /bin/true (arm truec) and with an empty static Go binary (arm goc) in its place, from the last -bin")
	tools := flag.Int("tools", 3, "tool calls in the scripted session (1 to 3)")
	five := flag.Bool("five", true, "run the arms of the five binaries (true, and each -bin); -five=false keeps none, truec and hookwire")
	flag.DurationVar(&gap, "gap", 0, "with -invocations: wait this long after each invocation before the next, as an agent's next event mostly comes after a tool has run (0: back to back)")
	flag.BoolVar(&singles, "singles", true, "with -invocations: time each surface's own binary too; -singles=false keeps the floors and hookwire (a third of the rounds' time; its p95s compare builds with each other, not with a full run's)")
	invocations := flag.Int("invocations", 0, "also time this many interleaved rounds of single invocations (each binary, hookwire, an empty static Go binary, /bin/true) outside any agent")
	write := flag.Bool("write", false, "write the summary into docs/performance.md (and README.md) between their livebench marks")
	issue42 := flag.Bool("issue42", false, "issue 42's measurement: "+presetFlags(issue42Flags)+" (flags given explicitly still win)")
	serve := flag.Bool("serve", false, "only start the surfaces, print their environment, and serve until killed (to profile a binary by hand)")
	var sets bins
	flag.Var(&sets, "bin", "LABEL=DIR: a set of hookwire binaries to measure (repeatable; default: this module, built); with -invocations each set is timed in the same rounds, its cases labelled [LABEL], its state in a runtime directory of its own")
	flag.Parse()
	if *issue42 {
		check(preset(flag.CommandLine, issue42Flags))
	}
	if *tools < 1 || *tools > 3 {
		check(fmt.Errorf("-tools %d: 1 to 3", *tools))
	}
	toolCalls = *tools

	work, err := os.MkdirTemp("", "livebench")
	check(err)
	if !*keep {
		defer os.RemoveAll(work)
	}
	if *serve {
		env := surfaces(work)
		fmt.Println(strings.Join(append(env, "PATH="+os.Getenv("PATH")), "\n"))
		select {}
	}
	if len(sets) == 0 {
		dir, err := testkit.BuildSuite(".")
		check(err)
		if !*keep {
			defer os.RemoveAll(dir)
		}
		sets = append(sets, "built="+dir)
	}
	arms := []arm{{label: "none"}}
	var builds []build
	for i, s := range sets {
		label, dir, ok := strings.Cut(s, "=")
		if !ok {
			check(fmt.Errorf("-bin %q: want LABEL=DIR", s))
		}
		dir, _ = filepath.Abs(dir)
		builds = append(builds, build{label, dir})
		if !*five {
			arms = append(arms, arm{label: label, dir: dir, skip: true})
			continue
		}
		if i == 0 {
			arms = append(arms, arm{label: "true", dir: dir, instead: "/bin/true"})
		}
		arms = append(arms, arm{label: label, dir: dir})
	}
	if *combined {
		last := arms[len(arms)-1]
		empty := filepath.Join(work, "goc", "empty")
		check(buildEmptyGo(empty))
		arms = append(arms, arm{label: "truec", dir: last.dir, instead: "/bin/true", combined: true},
			arm{label: "goc", dir: last.dir, instead: empty, combined: true}, arm{label: "hookwire", dir: last.dir, combined: true})
	}
	if *one != "" {
		last := arms[len(arms)-1]
		arms = append(arms, arm{label: "true1", dir: last.dir, instead: "/bin/true", only: *one}, arm{label: "one", dir: last.dir, only: *one})
	}
	if *write && len(builds) > 1 {
		check(errors.New("-write takes one -bin: the tables are one build's"))
	}
	arms = slices.DeleteFunc(arms, func(a arm) bool { return a.skip })
	env := surfaces(work)
	cache := filepath.Join(os.Getenv("HOME"), ".cache", "hookwire", "agents")

	var results []result
	for r := range *runs {
		for _, a := range agents {
			if !slices.Contains(strings.Split(*only, ","), a.name) {
				continue
			}
			exe := filepath.Join(cache, a.pkg, "node_modules", ".bin", a.exe)
			if _, err := os.Stat(exe); err != nil {
				fmt.Fprintf(os.Stderr, "livebench: %s: %v: skipped\n", a.name, err)
				continue
			}
			if len(arms) == 1 && *invocations > 0 {
				break // only the invocations were asked for
			}
			for i := range arms {
				ar := arms[(i+r)%len(arms)] // the order rotates from round to round
				res, err := run(work, exe, a, ar, env, r)
				if err != nil {
					fmt.Fprintf(os.Stderr, "livebench: round %d %s %s: %v\n", r+1, a.name, ar.label, err)
					continue
				}
				results = append(results, res)
				fmt.Fprintf(os.Stderr, "round %d %-8s %-8s %7.0f ms  cpu %7.0f ms  %2d hook runs\n", r+1, a.name, ar.label, res.Ms, res.CPU, len(res.Hooks))
			}
		}
	}
	if *out != "" {
		b, _ := json.MarshalIndent(results, "", " ")
		check(os.WriteFile(*out, b, 0o644))
	}
	report(os.Stdout, results, arms)
	var inv []invocationRun
	if *invocations > 0 {
		inv = timeInvocations(work, builds, env, *invocations)
		reportInvocations(os.Stdout, inv)
	}
	sum := summary(results, inv, *runs, *tools)
	fmt.Println("\n" + sum)
	if *write {
		check(writeSummary(sum))
	}
}

// toolCalls is how many of the script's three tool calls a session makes.
var toolCalls = 3

// script is an agent's session: its first toolCalls tool calls.
func script(a agentSpec, cwd string) []modelapi.Step {
	return a.steps(cwd)[:toolCalls]
}

type result struct {
	Agent, Arm string
	Round      int
	Ms         float64 // the agent's session, spawn to exit
	// CPU is the user and system time of the agent and every process it
	// waited for (its hooks): the cost that a loaded machine does not blur
	// as it blurs wall time. A finisher, detached, is not in it.
	CPU   float64
	Hooks []hookRun
}

// hookRun is one line of PULSE_LOG.
type hookRun struct {
	Binary   string  `json:"binary"`
	Event    string  `json:"event"`
	Ms       float64 `json:"ms"`
	Finisher bool    `json:"finisher"`
}

// run runs one session in a fresh HOME.
func run(work, exe string, a agentSpec, ar arm, surfaceEnv []string, round int) (result, error) {
	dir, err := os.MkdirTemp(work, a.name+"-"+ar.label+"-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	home := filepath.Join(dir, "home")
	cwd := filepath.Join(home, "proj")
	for _, d := range []string{cwd, filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return result{}, err
		}
	}
	run, err := runtimeDir(dir)
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(run)
	if err := noctaliaIn(work, run); err != nil {
		return result{}, err
	}
	api := &modelapi.Server{Wire: a.wire, Script: modelapi.Script{Steps: script(a, cwd), Answer: "All three steps are done: I ran a command, wrote notes.txt and read it back."}}
	url, err := api.Start()
	if err != nil {
		return result{}, err
	}
	defer api.Close()
	if a.setup != nil {
		if err := a.setup(home, url); err != nil {
			return result{}, err
		}
	}
	log := filepath.Join(dir, "hooks.log")
	env := append([]string{
		"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "TMPDIR=" + filepath.Join(dir, "tmp"),
		"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "PULSE_LOG=" + log,
	}, surfaceEnv...)
	env = append(env, a.env(url)...)
	if ar.dir != "" {
		for _, b := range binaries {
			if ar.only != "" && b != ar.only || ar.combined {
				continue
			}
			cmd := exec.Command(filepath.Join(ar.dir, b), "install", "--agent", a.name)
			cmd.Env, cmd.Dir = env, cwd
			if out, err := cmd.CombinedOutput(); err != nil {
				return result{}, fmt.Errorf("%s install: %v: %s", b, err, out)
			}
		}
		if ar.combined {
			cmd := exec.Command(filepath.Join(ar.dir, "hookwire"), "install", "--agent", a.name)
			cmd.Env, cmd.Dir = env, cwd
			if out, err := cmd.CombinedOutput(); err != nil {
				return result{}, fmt.Errorf("hookwire install: %v: %s", err, out)
			}
		}
		if ar.instead != "" {
			if err := commandInstead(home, ar.dir, ar.instead); err != nil {
				return result{}, err
			}
		}
	}
	// The Coral session's log, which coral-pulse appends to.
	if err := writeFile(filepath.Join(dir, "tmp", "claude_coral_"+coralUUID+".log"), ""); err != nil {
		return result{}, err
	}

	cmd := exec.Command(exe, a.args...)
	cmd.Env, cmd.Dir = env, cwd
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output // stdin: /dev/null
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if verbose {
		fmt.Fprintf(os.Stderr, "%s %s: %s\n", a.name, ar.label, output.String())
	}
	if err != nil {
		return result{}, fmt.Errorf("%v: %s", err, clip(output.String()))
	}
	if _, scripted, n := api.Served(); n != len(script(a, cwd))+1 || scripted.Output == 0 {
		return result{}, fmt.Errorf("the session did not follow the script (%d responses): %s", n, clip(output.String()))
	}
	res := result{Agent: a.name, Arm: ar.label, Round: round + 1, Ms: ms(took),
		CPU: ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())}
	time.Sleep(1200 * time.Millisecond) // a finisher's line comes after the session
	if f, err := os.Open(log); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var h hookRun
			if json.Unmarshal(sc.Bytes(), &h) == nil {
				res.Hooks = append(res.Hooks, h)
			}
		}
		f.Close()
	}
	if ar.dir != "" && ar.instead == "" && len(res.Hooks) == 0 {
		return result{}, errors.New("no hook ran: " + clip(output.String()))
	}
	return res, nil
}

// commandInstead puts command (/bin/true, an empty Go binary) in place of
// every binary of dir in the agents' settings under home: the same hooks,
// the same events, the same order.
func commandInstead(home, dir, command string) error {
	return filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		for _, bin := range append(binaries, "hookwire") {
			s = strings.ReplaceAll(s, filepath.Join(dir, bin), command)
		}
		if s == string(b) {
			return nil
		}
		return os.WriteFile(path, []byte(s), 0o600)
	})
}

const coralUUID = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"

// surfaces starts every surface, answering at once, and returns the
// environment that points the binaries at them.
func surfaces(work string) []string {
	bin := filepath.Join(work, "bin")
	check(os.MkdirAll(bin, 0o755))
	check(testkit.WriteTinyExit(filepath.Join(bin, "noctalia")))
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// noctalia's socket, which the binaries write on when it is there (a
	// link to it in each home's runtime directory, noctaliaIn), as the
	// real shell answers: one line, then the connection closed.
	serveUnix(filepath.Join(work, "noctalia.sock"), func(c net.Conn) {
		if _, err := bufio.NewReader(c).ReadBytes('\n'); err == nil {
			c.Write([]byte("ok: dispatched 1\n"))
		}
	})

	coucou := filepath.Join(work, "coucou.sock")
	serveUnix(coucou, func(c net.Conn) {
		if _, err := bufio.NewReader(c).ReadBytes('\n'); err == nil {
			c.Write([]byte(`{"ok":true}` + "\n"))
		}
	})
	vpet := filepath.Join(work, "vpet.sock")
	serveUnix(vpet, func(c net.Conn) {
		if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			io.Copy(io.Discard, req.Body)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"ok":true}`)
	}))
	daemon := "http://" + ln.Addr().String()
	return []string{
		"COUCOU_SOCKET=" + coucou,
		"TRAILBOSS_URL=" + daemon, "TMUX_PANE=%1",
		"VPET_NOTIFY_SOCKET=" + vpet, "VPET_NOTIFY_TOKEN=livebench",
		"CORAL_SESSION_NAME=claude-" + coralUUID, "CORAL_URL=" + daemon,
	}
}

// runtimeDir makes a session's XDG_RUNTIME_DIR, where hookwire keeps its
// state: on tmpfs (/dev/shm) when there is one, as a desktop's
// /run/user/<uid> is, else in dir. On this machine's ext4 the state files'
// writes and renames took a third of the five surfaces' work on an event
// (2.0-2.2 ms against 1.3-1.4 on tmpfs, in process, issue 23): a desktop
// does not pay that.
func runtimeDir(dir string) (string, error) {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return os.MkdirTemp("/dev/shm", "livebench-run-")
	}
	run := filepath.Join(dir, "run")
	return run, os.MkdirAll(run, 0o700)
}

// noctaliaIn puts noctalia's socket (surfaces) in a runtime directory, at
// the path noctalia's own clients work out without WAYLAND_DISPLAY.
func noctaliaIn(work, run string) error {
	return os.Symlink(filepath.Join(work, "noctalia.sock"), filepath.Join(run, "noctalia-wayland-0.sock"))
}

func serveUnix(path string, serve func(net.Conn)) {
	ln, err := net.Listen("unix", path)
	check(err)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
}

// report prints the tables.
func report(w io.Writer, results []result, arms []arm) {
	var names []string
	for _, r := range results {
		if !slices.Contains(names, r.Agent) {
			names = append(names, r.Agent)
		}
	}
	real := func(yield func(arm) bool) {
		for _, a := range arms {
			if a.dir != "" && a.instead == "" && a.only == "" && !yield(a) {
				return
			}
		}
	}
	for _, metric := range []struct {
		title string
		value func(result) float64
	}{
		{"Session time, spawn to exit", func(r result) float64 { return r.Ms }},
		{"CPU time of the agent and the hooks it waited for", func(r result) float64 { return r.CPU }},
	} {
		by := map[[2]string][]float64{}
		for _, r := range results {
			k := [2]string{r.Agent, r.Arm}
			by[k] = append(by[k], metric.value(r))
		}
		fmt.Fprintf(w, "\n%s, median of the rounds (ms); overhead = median − median with /bin/true hooks\n\n", metric.title)
		fmt.Fprintf(w, "| agent | runs |")
		for _, a := range arms {
			fmt.Fprintf(w, " %s |", a.label)
		}
		cols := 0
		for a := range real {
			fmt.Fprintf(w, " %s overhead |", a.label)
			cols++
		}
		if len(by) > 0 && slices.ContainsFunc(arms, func(a arm) bool { return a.label == "one" }) {
			fmt.Fprintf(w, " one overhead (over true1) |")
			cols++
		}
		for a := range real {
			fmt.Fprintf(w, " %s over none |", a.label)
			cols++
		}
		fmt.Fprintf(w, " hook runs |\n|---|---:|%s\n", strings.Repeat("---:|", len(arms)+cols+1))
		for _, n := range names {
			floor := median(by[[2]string{n, "true"}])
			fmt.Fprintf(w, "| %s | %d |", n, len(by[[2]string{n, "none"}]))
			for _, a := range arms {
				fmt.Fprintf(w, " %.0f |", median(by[[2]string{n, a.label}]))
			}
			hooks := 0
			for a := range real {
				if len(by[[2]string{n, "true"}]) == 0 {
					fmt.Fprintf(w, " |") // no arm of /bin/true for the five (-five=false)
				} else {
					fmt.Fprintf(w, " %+.0f |", median(by[[2]string{n, a.label}])-floor)
				}
				for _, r := range results {
					if r.Agent == n && r.Arm == a.label {
						hooks = len(r.Hooks)
					}
				}
			}
			if slices.ContainsFunc(arms, func(a arm) bool { return a.label == "one" }) {
				fmt.Fprintf(w, " %+.0f |", median(by[[2]string{n, "one"}])-median(by[[2]string{n, "true1"}]))
			}
			for a := range real {
				fmt.Fprintf(w, " %+.0f |", median(by[[2]string{n, a.label}])-median(by[[2]string{n, "none"}]))
			}
			fmt.Fprintf(w, " %d |\n", hooks)
		}
	}

	fmt.Fprintf(w, "\nPer invocation, as PULSE_LOG records it (ms from the runtime's start to exit, process start excluded; finishers excluded): p50 / p95\n\n")
	for a := range real {
		columns := binaries
		if a.combined {
			columns = append([]string{"hookwire"}, binaries...)
		}
		fmt.Fprintf(w, "%s:\n\n| agent | event |", a.label)
		for _, b := range columns {
			fmt.Fprintf(w, " %s |", b)
		}
		fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---:|", len(columns)))
		for _, n := range names {
			cell := map[[2]string][]float64{}
			var events []string
			for _, r := range results {
				if r.Agent != n || r.Arm != a.label {
					continue
				}
				for _, h := range r.Hooks {
					if h.Finisher {
						continue
					}
					cell[[2]string{h.Event, h.Binary}] = append(cell[[2]string{h.Event, h.Binary}], h.Ms)
					cell[[2]string{"all", h.Binary}] = append(cell[[2]string{"all", h.Binary}], h.Ms)
					if !slices.Contains(events, h.Event) {
						events = append(events, h.Event)
					}
				}
			}
			for _, e := range append(events, "all") {
				fmt.Fprintf(w, "| %s | %s |", n, e)
				for _, b := range columns {
					v := cell[[2]string{e, b}]
					if len(v) == 0 {
						fmt.Fprintf(w, " |")
						continue
					}
					fmt.Fprintf(w, " %.1f / %.1f |", pct(v, 0.5), pct(v, 0.95))
				}
				fmt.Fprintln(w)
			}
		}
		fmt.Fprintln(w)
	}
}

func median(v []float64) float64 { return pct(v, 0.5) }

func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	i := p * float64(len(s)-1)
	lo := int(i)
	if lo+1 < len(s) {
		return s[lo] + (i-float64(lo))*(s[lo+1]-s[lo])
	}
	return s[lo]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func clip(s string) string {
	if len(s) > 600 {
		return s[len(s)-600:]
	}
	return s
}

func writeFile(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(s), 0o600)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "livebench:", err)
		os.Exit(1)
	}
}

// issue42Flags are -issue42's: a one-tool session of Claude Code and Gemini
// CLI through hookwire serving the five surfaces, against its hooks with
// /bin/true and an empty static Go binary in its place, 15 rounds; then 300
// rounds of single invocations, hookwire's against the empty Go binary's.
var issue42Flags = [][2]string{{"agents", "claude,gemini"}, {"tools", "1"}, {"five", "false"}, {"combined", "true"}, {"runs", "15"}, {"invocations", "300"}}

// preset sets fs's flags to values, but for those its command line gave.
func preset(fs *flag.FlagSet, values [][2]string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, kv := range values {
		if given[kv[0]] {
			continue
		}
		if err := fs.Set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("-%s=%s: %v", kv[0], kv[1], err)
		}
	}
	return nil
}

// presetFlags is values as a command line says them.
func presetFlags(values [][2]string) string {
	var args []string
	for _, kv := range values {
		switch kv[1] {
		case "true":
			args = append(args, "-"+kv[0])
		case "false":
			args = append(args, "-"+kv[0]+"=false")
		default:
			args = append(args, "-"+kv[0], kv[1])
		}
	}
	return strings.Join(args, " ")
}
