package hookwire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := run()
			if err == nil && (u.In > g.Truth.In || u.Out > g.Truth.Out || u.CacheCreate > g.Truth.CacheCreate || u.CacheRead > g.Truth.CacheRead) {
				err = fmt.Errorf("reported %+v, more than the truth %+v", u, g.Truth)
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
	// Up to date after at most a few calls (each reads for a bounded time).
	var u transcript.Usage
	for range 5 {
		if u, err = run(); err != nil {
			t.Fatal(err)
		}
		if u == g.Truth {
			return
		}
	}
	t.Errorf("final %+v, want %+v", u, g.Truth)
}

// parseBurn reads the token fields of a dry-run pulse command line.
func parseBurn(line string) (transcript.Usage, error) {
	f := strings.Fields(strings.TrimSpace(line))
	if len(f) < 7 {
		return transcript.Usage{}, fmt.Errorf("no payload in %q", line)
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

// BenchmarkPulseClaudeColdMemory measures the peak memory (maximum resident
// set) of pulse-claude reading a 1 GiB transcript whose longest lines are
// 20 MiB, from cold: each call reads for its time budget and the next goes
// on, until the totals are exact. The aim is a peak bounded by a small
// multiple of the longest line, whatever the transcript's size.
//
//	go test -run '^$' -bench PulseClaudeColdMemory -benchtime 1x .
func BenchmarkPulseClaudeColdMemory(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	// The transcript is written by a helper process: a child's maximum
	// resident set includes its parent's high-water mark (os/exec spawns
	// with vfork), and writing 1 GiB would make ours large.
	dir := b.TempDir()
	gen := exec.Command(os.Args[0], "-test.run=^TestHelperBigTranscript$")
	gen.Env = append(os.Environ(), "HOOKWIRE_BIG_TRANSCRIPT="+dir)
	out, err := gen.Output()
	if err != nil {
		b.Fatalf("generating: %v", err)
	}
	var big struct {
		Path  string
		Truth transcript.Usage
	}
	if err := json.Unmarshal(bytes.TrimSpace(out[:bytes.IndexByte(out, '\n')+1]), &big); err != nil {
		b.Fatalf("generator said %q: %v", out, err)
	}
	payload := fmt.Sprintf(`{"session_id":"d63ac083-c016","transcript_path":%q,"cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash"}`, big.Path)
	for b.Loop() {
		run := b.TempDir() // a cold state each time
		env := append(baseEnv(run), "PULSE_DRYRUN=1")
		var peak int64
		calls := 0
		for {
			calls++
			cmd := exec.Command(filepath.Join(bin, "pulse-claude"))
			cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				peak = max(peak, ru.Maxrss) // KiB on Linux
			}
			if u, err := parseBurn(string(out)); err == nil && u == big.Truth {
				break
			}
			if calls > 100 {
				b.Fatal("never caught up")
			}
		}
		b.ReportMetric(float64(peak)/1024, "peak-MiB")
		b.ReportMetric(float64(calls), "calls")
	}
	b.ReportMetric(20, "longest-line-MiB")
	b.ReportMetric(0, "ns/op")
}

// TestHelperBigTranscript writes a 1 GiB session with 20 MiB lines into
// $HOOKWIRE_BIG_TRANSCRIPT and prints its path and totals; it is the helper
// process of BenchmarkPulseClaudeColdMemory, skipped otherwise.
func TestHelperBigTranscript(t *testing.T) {
	dir := os.Getenv("HOOKWIRE_BIG_TRANSCRIPT")
	if dir == "" {
		t.Skip("a helper process")
	}
	g := transcripttest.New(3)
	g.BigLine = 20 << 20
	for {
		g.Turns(10)
		path, err := g.Flush(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Size() >= 1<<30 {
			out, _ := json.Marshal(map[string]any{"Path": path, "Truth": g.Truth})
			fmt.Printf("%s\n", out)
			return
		}
	}
}
