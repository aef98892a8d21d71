package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// An invocationCase is one command run for one event, outside any agent.
type invocationCase struct {
	label string // binary, event
	args  []string
	stdin []byte
	build int // the build it runs, whose runtime directory is its own
}

// A build is one -bin set: its label and its directory. With several, each
// has its hookwire and binaries timed in the same rounds, its labels say
// which, and its state in a runtime directory of its own (one build's state
// files are no other's).
type build struct{ label, dir string }

// tag is a case's name for build b: the build's label, with several.
func tag(name string, builds []build, b int) string {
	if len(builds) == 1 {
		return name
	}
	return name + " [" + builds[b].label + "]"
}

// invocationRun is one spawn of a case, to its exit.
type invocationRun struct {
	Case     string
	Round    int // from 1: the round ran every case once
	Ms, CPU  float64
	Faults   float64 // minor page faults: the binary's pages mapped in, its heap touched
	Failed   bool
	ExitCode int
}

// floorGo and floorTrue label the floors: an empty static Go binary (the
// issue's: what any Go hook costs at least) and /bin/true; hookwireLabel
// begins hookwire's cases, the five surfaces configured.
const (
	floorGo       = "empty static Go binary"
	floorTrue     = "/bin/true"
	hookwireLabel = "hookwire (five surfaces)"
	// floorInit is hookwire's own floor: a binary of this tree that links
	// every package hookwire does and whose main returns at once. It pays
	// what any hookwire pays before its first line runs (the runtime's start
	// in a larger binary, and every package's initialisation), and nothing
	// of an event's work.
	floorInit = "hookwire's packages, main returning at once"
)

// invocationEvents are the events each binary is timed on: the recorded
// payloads of Claude Code's PreToolUse and Stop (with its transcript) and
// Gemini CLI's BeforeTool.
func invocationEvents(work string) []struct {
	name, agent string
	payload     []byte
} {
	transcript := filepath.Join(work, "inv", "transcript.jsonl")
	b, err := os.ReadFile("testdata/transcripts/claude-2.1.328/transcript.jsonl")
	check(err)
	check(writeFile(transcript, string(b)))
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		check(err)
		return b
	}
	stop := strings.Replace(string(read("testdata/agents/claude-2.1.328/14-Stop.json")),
		"/home/user/.claude/projects/-home-user-proj/38409ea5-1256-486a-b05a-2edfa4b9fc61.jsonl", transcript, 1)
	return []struct {
		name, agent string
		payload     []byte
	}{
		{"Claude Code PreToolUse", "", read("testdata/agents/claude-2.1.328/04-PreToolUse.json")},
		{"Claude Code Stop", "", []byte(stop)},
		{"Gemini CLI BeforeTool", "gemini", read("testdata/agents/gemini-0.61.0/08-BeforeTool.json")},
	}
}

// invocationCases are the floors, then, for each build, hookwire serving
// the five surfaces and each binary alone (unless -singles=false), on each
// event.
func invocationCases(work string, builds []build) []invocationCase {
	empty, initOnly := filepath.Join(work, "inv", "empty"), filepath.Join(work, "inv", "init-only")
	check(buildEmptyGo(empty))
	check(buildInitOnly(initOnly))
	cases := []invocationCase{{label: floorGo, args: []string{empty}}, {label: floorTrue, args: []string{"/bin/true"}},
		{label: floorInit, args: []string{initOnly}}}
	for _, ev := range invocationEvents(work) {
		agentArgs := []string{}
		if ev.agent != "" {
			agentArgs = []string{"--agent", ev.agent}
		}
		for i, bd := range builds {
			hw := append([]string{filepath.Join(bd.dir, "hookwire"), "--surfaces", strings.Join(binaries, ",")}, agentArgs...)
			cases = append(cases, invocationCase{label: tag(hookwireLabel, builds, i) + ", " + ev.name, args: hw, stdin: ev.payload, build: i})
			for _, b := range binaries {
				if !singles {
					break
				}
				cases = append(cases, invocationCase{label: tag(b, builds, i) + ", " + ev.name, args: append([]string{filepath.Join(bd.dir, b)}, agentArgs...), stdin: ev.payload, build: i})
			}
		}
	}
	return cases
}

// buildEmptyGo builds `func main() {}` as the binaries are built: static,
// trimmed, stripped.
func buildEmptyGo(out string) error {
	src := filepath.Join(filepath.Dir(out), "emptysrc")
	if err := writeFile(filepath.Join(src, "go.mod"), "module empty\n\ngo 1.22\n"); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(src, "main.go"), "package main\n\nfunc main() {}\n"); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir, cmd.Env = src, append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the empty Go binary: %v: %s", err, b)
	}
	return nil
}

// buildInitOnly builds floorInit's binary from this tree, as the binaries
// are built: a main package that imports hookwire's (internal/combined) and
// does nothing. Its one file is an overlay, so nothing is written into the
// tree.
func buildInitOnly(out string) error {
	src := filepath.Join(filepath.Dir(out), "init-only.go")
	if err := writeFile(src, "package main\n\nimport _ \"github.com/hookwire/hookwire/internal/combined\"\n\nfunc main() {}\n"); err != nil {
		return err
	}
	repo, err := os.Getwd() // livebench runs from the repository's root
	if err != nil {
		return err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(repo, "cmd", "livebench-init-only", "main.go"): src}})
	if err != nil {
		return err
	}
	overlayFile := filepath.Join(filepath.Dir(out), "overlay.json")
	if err := writeFile(overlayFile, string(overlay)); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-overlay", overlayFile, "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/livebench-init-only")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building hookwire's packages with an empty main: %v: %s", err, b)
	}
	return nil
}

// timeInvocations runs every case once per round, in an order that rotates
// from round to round, each with its payload on a pipe the agent closed, in
// a home of its own with every surface up (state warm after the first
// round, as in a session).
func timeInvocations(work string, builds []build, surfaceEnv []string, rounds int) []invocationRun {
	cases := invocationCases(work, builds)
	caseOrder = nil
	for _, c := range cases {
		caseOrder = append(caseOrder, c.label)
	}
	home := filepath.Join(work, "inv", "home")
	for _, d := range []string{home, filepath.Join(home, "tmp")} {
		check(os.MkdirAll(d, 0o700))
	}
	check(writeFile(filepath.Join(home, "tmp", "claude_coral_"+coralUUID+".log"), ""))
	envs := make([][]string, len(builds))
	for i := range builds {
		run, err := runtimeDir(filepath.Join(work, "inv", strconv.Itoa(i)))
		check(err)
		defer os.RemoveAll(run)
		check(noctaliaIn(work, run))
		envs[i] = append([]string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "TMPDIR=" + filepath.Join(home, "tmp"),
			"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}, surfaceEnv...)
	}
	var out []invocationRun
	for r := range rounds + 1 {
		for i := range cases {
			c := cases[(i+r)%len(cases)]
			res := spawn(c, envs[c.build])
			res.Round = r
			if r > 0 { // the first round warms the state and the page cache
				out = append(out, res)
			}
			time.Sleep(gap)
		}
		if r%50 == 0 {
			fmt.Fprintf(os.Stderr, "invocations: round %d of %d\n", r, rounds)
		}
	}
	time.Sleep(500 * time.Millisecond) // the last finishers, before the surfaces go
	return out
}

// gap is -gap: the pause after each invocation.
var gap time.Duration

// singles is -singles: each surface's own binary is timed too.
var singles = true

// spawn runs one case, spawn to exit.
func spawn(c invocationCase, env []string) invocationRun {
	cmd := exec.Command(c.args[0], c.args[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, io.Discard, io.Discard
	if c.stdin != nil {
		r, w, err := os.Pipe()
		check(err)
		_, err = w.Write(c.stdin) // under the pipe's buffer: the payload is there, the pipe closed
		check(err)
		w.Close()
		defer r.Close()
		cmd.Stdin = r
	}
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	run := invocationRun{Case: c.label, Ms: ms(took)}
	if cmd.ProcessState != nil {
		run.CPU = ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
		run.ExitCode = cmd.ProcessState.ExitCode()
		run.Faults = minorFaults(cmd.ProcessState)
	}
	run.Failed = err != nil
	return run
}

// reportInvocations prints every case's p50/p95, wall and CPU, and its
// p50 and p95 over the empty Go binary's (with their 95 % intervals).
func reportInvocations(w io.Writer, runs []invocationRun) {
	by, order := byCase(runs)
	fmt.Fprintf(w, "\nOne invocation, spawn to exit (ms), %d rounds: p50 / p95, CPU p50, p50 and p95 over the empty Go binary's\n\n", len(by[floorGo]))
	fmt.Fprintf(w, "| command, event | wall p50 / p95 | CPU p50 | p50 over %s | p95 over %s |\n|---|---:|---:|---:|---:|\n", floorGo, floorGo)
	for _, c := range order {
		v := by[c]
		fmt.Fprintf(w, "| %s | %.2f / %.2f | %.2f | %s | %s |\n", c, pct(v, 0.5), pct(v, 0.95), pct(cpuOf(runs, c), 0.5), over(runs, c, 0.5), over(runs, c, 0.95))
	}
	for _, r := range runs {
		if r.Failed {
			fmt.Fprintf(w, "\n(%s: exit status %d: a hook must exit 0)\n", r.Case, r.ExitCode)
			break
		}
	}
}

// caseOrder are the cases' labels in the order they were made.
var caseOrder []string

func byCase(runs []invocationRun) (map[string][]float64, []string) {
	by := map[string][]float64{}
	for _, r := range runs {
		by[r.Case] = append(by[r.Case], r.Ms)
	}
	return by, caseOrder
}

func cpuOf(runs []invocationRun, c string) []float64 {
	var v []float64
	for _, r := range runs {
		if r.Case == c {
			v = append(v, r.CPU)
		}
	}
	return v
}

func faultsOf(runs []invocationRun, c string) []float64 {
	var v []float64
	for _, r := range runs {
		if r.Case == c {
			v = append(v, r.Faults)
		}
	}
	return v
}
