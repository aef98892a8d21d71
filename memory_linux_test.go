package hookwire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/transcript"
	"github.com/hookwire/hookwire/internal/transcript/transcripttest"
)

// BenchmarkPulseClaudeColdMemory measures the peak memory (maximum resident
// set) of pulse-claude reading a 1 GiB transcript whose longest lines are
// 20 MiB, from cold: each call reads for its time budget and the next goes
// on, until the totals are exact. The aim is a peak bounded by a small
// multiple of the longest line, whatever the transcript's size.
//
//	go test -run '^$' -bench PulseClaudeColdMemory -benchtime 1x .
func BenchmarkPulseClaudeColdMemory(b *testing.B) {
	coldMemory(b, "claude")
}

// BenchmarkPulseClaudeColdMemoryAgents is the same for a 1 GiB Codex
// rollout, Gemini CLI chat and Copilot CLI events file with 20 MiB lines.
//
//	go test -run '^$' -bench PulseClaudeColdMemoryAgents -benchtime 1x .
func BenchmarkPulseClaudeColdMemoryAgents(b *testing.B) {
	for _, a := range []string{"codex", "gemini", "copilot"} {
		b.Run(a, func(b *testing.B) { coldMemory(b, a) })
	}
}

func coldMemory(b *testing.B, agentName string) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	// The transcript is written by a helper process: a child's maximum
	// resident set includes its parent's high-water mark (os/exec spawns
	// with vfork), and writing 1 GiB would make ours large.
	dir := b.TempDir()
	gen := exec.Command(os.Args[0], "-test.run=^TestHelperBigTranscript$")
	gen.Env = append(os.Environ(), "HOOKWIRE_BIG_TRANSCRIPT="+dir, "HOOKWIRE_BIG_FORMAT="+agentName)
	out, err := gen.Output()
	if err != nil {
		b.Fatalf("generating: %v", err)
	}
	var big struct {
		Path, Session string
		Truth         transcript.Usage
	}
	if err := json.Unmarshal(bytes.TrimSpace(out[:bytes.IndexByte(out, '\n')+1]), &big); err != nil {
		b.Fatalf("generator said %q: %v", out, err)
	}
	if big.Session == "" {
		big.Session = "d63ac083-c016"
	}
	payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash"}`, big.Session, big.Path)
	args := []string{}
	if agentName != "claude" {
		args = []string{"--agent", agentName, "tool_start"}
	}
	for b.Loop() {
		run := b.TempDir() // a cold state each time
		env := append(baseEnv(run), "PULSE_DRYRUN=1")
		var peak int64
		calls := 0
		for {
			calls++
			cmd := exec.Command(filepath.Join(bin, "pulse-claude"), args...)
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
	if f, ok := map[string]transcript.Format{"codex": transcript.Codex, "gemini": transcript.Gemini, "copilot": transcript.Copilot}[os.Getenv("HOOKWIRE_BIG_FORMAT")]; ok {
		a := transcripttest.NewAgent(f, 3)
		a.BigLine = 20 << 20
		for {
			a.Turns(10)
			path, err := a.Flush(dir)
			if err != nil {
				t.Fatal(err)
			}
			if fi, _ := os.Stat(path); fi.Size() >= 1<<30 {
				out, _ := json.Marshal(map[string]any{"Path": path, "Truth": a.Truth, "Session": a.Session})
				fmt.Printf("%s\n", out)
				return
			}
		}
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
