package hookwire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/transcript"
	"github.com/hookwire/hookwire/internal/transcript/transcripttest"
)

// Claude Code runs hooks in parallel: 32 pulse-claude processes for one
// session, started together while the transcript and a subagent's file
// grow in random chunks. None may ever report more than the truth, and
// once the writing is over the next call reports it exactly.
func TestPulseClaudeConcurrent(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	g := transcripttest.New(42).Turns(120)
	dir := t.TempDir()
	path := filepath.Join(dir, g.Session+".jsonl")
	os.WriteFile(path, nil, 0o600)
	env := append(baseEnv(dir), "PULSE_DRYRUN=1")
	payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash"}`, g.Session, path)

	run := func() (transcript.Usage, error) {
		cmd := exec.Command(filepath.Join(bin, "pulse-claude"))
		cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			return transcript.Usage{}, fmt.Errorf("exit %v, stderr %q", err, stderr.Bytes())
		}
		return parseBurn(stdout.String())
	}

	writing := make(chan struct{})
	go func() { // the agent, writing
		defer close(writing)
		rng := rand.New(rand.NewPCG(1, 2))
		pending := map[string][]byte{}
		file := func(name string) string {
			if name == "" {
				return path
			}
			p := filepath.Join(dir, g.Session, "subagents", name)
			os.MkdirAll(filepath.Dir(p), 0o700)
			return p
		}
		flush := func(name string, n int) {
			f, _ := os.OpenFile(file(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			f.Write(pending[name][:n])
			f.Close()
			pending[name] = pending[name][n:]
		}
		for i, w := range g.Order {
			pending[w.File] = append(pending[w.File], w.Line+"\n"...)
			flush(w.File, rng.IntN(len(pending[w.File])+1))
			if i%4 == 0 {
				time.Sleep(time.Millisecond) // the hooks run while the agent writes
			}
		}
		for name := range pending {
			flush(name, len(pending[name]))
		}
	}()

	checkParallelBurn(t, 32, run, writing, g.Truth)
}

// checkParallelBurn runs n hooks at once while the agent writes (until
// writing is closed): none may report more than the truth; then, the writing
// over, a few more calls (each reads for a bounded time) must reach it.
func checkParallelBurn(t *testing.T, n int, run func() (transcript.Usage, error), writing <-chan struct{}, truth transcript.Usage) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := run()
			if errors.Is(err, errNoTotals) {
				// Fail-open, not a fault: a hook that waited past lockBudget
				// for the session's scan lock sends the last saved totals,
				// and before the first save there are none (16 scans of a
				// growing file at once, on a loaded machine).
				err = nil
			}
			if err == nil && (u.In > truth.In || u.Out > truth.Out || u.CacheCreate > truth.CacheCreate || u.CacheRead > truth.CacheRead) {
				err = fmt.Errorf("reported %+v, more than the truth %+v", u, truth)
			}
			errs <- err
		}()
	}
	wg.Wait()
	<-writing
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	var u transcript.Usage
	for range 5 {
		var err error
		if u, err = run(); err != nil {
			t.Fatal(err)
		}
		if u == truth {
			return
		}
	}
	t.Errorf("final %+v, want %+v", u, truth)
}

// errNoTotals is parseBurn's answer to a line that carries no totals.
var errNoTotals = errors.New("no totals")

// parseBurn reads the token fields of a dry-run pulse command line.
func parseBurn(line string) (transcript.Usage, error) {
	f := strings.Fields(strings.TrimSpace(line))
	if len(f) < 7 {
		return transcript.Usage{}, fmt.Errorf("%w in %q", errNoTotals, line)
	}
	csv := strings.Split(f[6], ",")
	n := make([]int64, 4)
	for i := range n {
		v, err := strconv.ParseInt(csv[i+1], 10, 64)
		if err != nil {
			return transcript.Usage{}, fmt.Errorf("%q: %v", line, err)
		}
		n[i] = v
	}
	return transcript.Usage{In: n[0], Out: n[1], CacheCreate: n[2], CacheRead: n[3]}, nil
}

// A finisher (the detached process that sends a Stop's turn end once Claude
// Code has flushed the final message) is bounded like the hook it finishes:
// with a final message that never comes and a noctalia that hangs, it and
// noctalia are gone by the hook's own deadline, 3 s from the hook's start,
// and the hook itself never waited for either.
func TestPulseClaudeFinisherBounded(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	os.WriteFile(path, []byte(`{"type":"assistant","timestamp":"2026-11-30T09:00:01.000Z","requestId":"r1","message":{"model":"claude-opus-4-6","id":"m1","content":[{"type":"text","text":"Running the tests."}],"usage":{"input_tokens":3,"output_tokens":7}}}`+"\n"), 0o600)
	log := filepath.Join(dir, "log")
	cmd := exec.Command(filepath.Join(bin, "pulse-claude"))
	cmd.Env = append(append(baseEnv(dir), noctaliaTarget(t, dir, "hang")...), "PULSE_LOG="+log)
	cmd.Stdin = strings.NewReader(`{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","transcript_path":"` + path + `","hook_event_name":"Stop","last_assistant_message":"All 42 tests pass."}`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Fatalf("exit %v, output %q", err, out.Bytes())
	}
	b, _ := os.ReadFile(log)
	var line struct {
		Outcome string `json:"outcome"`
		PID     int    `json:"finisher_pid"`
	}
	if err := json.Unmarshal(b, &line); err != nil || line.PID == 0 || line.Outcome != "later" {
		t.Fatalf("the hook's log line names no finisher (%v): %s", err, b)
	}
	bound := hook.Budget + margin
	if !testkit.WaitDead(line.PID, time.Until(start.Add(bound))) {
		t.Errorf("the finisher (pid %d) outlived the hook's deadline (%v)", line.PID, bound)
	}
	pids, _ := os.ReadFile(filepath.Join(dir, "noctalia.got.pids"))
	if len(strings.Fields(string(pids))) != 2 {
		t.Errorf("the finisher did not run noctalia: pids %q", pids)
	}
	for _, p := range strings.Fields(string(pids)) {
		if pid, _ := strconv.Atoi(p); !testkit.WaitDead(pid, time.Until(start.Add(bound))) {
			t.Errorf("noctalia (pid %d), run by the finisher, outlived the hook's deadline", pid)
		}
	}
	b, _ = os.ReadFile(log)
	if !bytes.Contains(b, []byte(`"finisher":true`)) || !bytes.Contains(b, []byte("not flushed within")) {
		t.Errorf("no finisher line saying it gave up waiting: %s", b)
	}
	if got := noctaliaDelivered(dir); got != 1 {
		t.Errorf("noctalia ran %d times, want once", got)
	}
}

// The same for Codex, Gemini CLI and Copilot CLI: 16 parallel hooks of one
// session while its file grows in random chunks; never more than the truth,
// exact once the writing is over.
func TestPulseClaudeConcurrentAgents(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]transcript.Format{"codex": transcript.Codex, "gemini": transcript.Gemini, "copilot": transcript.Copilot} {
		t.Run(name, func(t *testing.T) {
			g := transcripttest.NewAgent(f, 42).Turns(80)
			dir := t.TempDir()
			path, _ := g.Write(dir) // the subagents' files; the main file grows below
			os.WriteFile(path, nil, 0o600)
			env := append(baseEnv(dir), "PULSE_DRYRUN=1")
			// transcript_path is Codex's and Gemini's name, transcriptPath Copilot's.
			payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"transcriptPath":%q,"cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash"}`, g.Session, path, path)
			run := func() (transcript.Usage, error) {
				cmd := exec.Command(filepath.Join(bin, "pulse-claude"), "--agent", name, "turn_start")
				cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil || stderr.Len() > 0 {
					return transcript.Usage{}, fmt.Errorf("exit %v, stderr %q", err, stderr.Bytes())
				}
				return parseBurn(stdout.String())
			}
			writing := make(chan struct{})
			go func() {
				defer close(writing)
				rng := rand.New(rand.NewPCG(3, 4))
				data := []byte(strings.Join(g.Lines, "\n") + "\n")
				f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
				defer f.Close()
				for len(data) > 0 {
					n := min(len(data), 1+rng.IntN(32<<10))
					f.Write(data[:n])
					data = data[n:]
					time.Sleep(time.Millisecond)
				}
			}()
			checkParallelBurn(t, 16, run, writing, g.Truth)
		})
	}
}
