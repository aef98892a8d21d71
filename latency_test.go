package hookwire_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
)

// latencyTargets says how each binary delivers to a target that costs as
// little as possible, so that the benchmark measures the binary itself.
var latencyTargets = map[string]func(b *testing.B, bin, dir string) []string{
	"pulse-emit": func(b *testing.B, bin, dir string) []string {
		// noctalia is a tiny static program that exits at once.
		noctalia := filepath.Join(dir, "noctalia")
		if err := testkit.WriteTinyExit(noctalia); err != nil {
			b.Logf("%v: using a Go program instead", err)
			os.Link(filepath.Join(bin, "quiettrue"), noctalia)
		}
		return []string{"PATH=" + dir}
	},
}

// BenchmarkLatency measures whole-process latency, spawn to exit, of each
// binary handling a realistic Stop payload and dispatching to a local
// target, beside /bin/true as the floor of spawning anything. It reports
// p50 and p95 in milliseconds:
//
//	go test -run '^$' -bench Latency -benchtime 2000x .
func BenchmarkLatency(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	stdin := []byte(goodPayload)
	b.Run("floor=/bin/true", func(b *testing.B) {
		spawn(b, exec.Command("/bin/true"), stdin, nil)
	})
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range latencyTargets {
			if !yield(k) {
				return
			}
		}
	}) {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			env := append(baseEnv(dir), latencyTargets[name](b, bin, dir)...)
			spawn(b, exec.Command(filepath.Join(bin, name), hostileTargets[name].args...), stdin, env)
		})
	}
}

// spawn runs cmd b.N times with stdin piped in and reports percentiles.
func spawn(b *testing.B, proto *exec.Cmd, stdin []byte, env []string) {
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		cmd := exec.Command(proto.Path, proto.Args[1:]...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		if out.Len() > 0 {
			b.Fatalf("stdout: %q", out.String())
		}
	}
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(0, "ns/op")
}
