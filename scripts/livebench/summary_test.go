package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The interval resamples whole rounds: an arm that is the floor plus 100 ms
// in every round differs by exactly 100 ms in every resample, however the
// rounds themselves spread; arms the noise alone tells apart get an
// interval that holds no difference at all.
func TestInterval(t *testing.T) {
	wall := func(r result) float64 { return r.Ms }
	spread := []float64{1013, 1642, 1201, 1297, 1073, 1382, 1254, 1172, 1413, 1038, 1376, 1240, 1177, 1270, 1384}
	var floor, shifted, other []result
	for i, ms := range spread {
		floor = append(floor, result{Round: i + 1, Ms: ms})
		shifted = append(shifted, result{Round: i + 1, Ms: ms + 100})
		other = append(other, result{Round: i + 1, Ms: spread[(i+7)%len(spread)]})
	}
	if lo, hi, ok := interval(floor, shifted, wall); !ok || lo != 100 || hi != 100 {
		t.Errorf("the floor plus 100 ms: %v to %v (%v), want exactly +100", lo, hi, ok)
	}
	if lo, hi, ok := interval(floor, other, wall); !ok || lo > -100 || hi < 100 {
		t.Errorf("the same sessions, rounds shuffled: %v to %v (%v), want an interval wider than ±100 ms", lo, hi, ok)
	}
	// Rounds of one arm only are no pairs; fewer than five pairs, no interval.
	if _, _, ok := interval(floor[:4], append(shifted[:4:4], result{Round: 99, Ms: 1}), wall); ok {
		t.Error("four pairs gave an interval")
	}
	if d := medianOf(nil, wall); !math.IsNaN(d) {
		t.Errorf("medianOf(nil) = %v, want NaN", d)
	}
}

// The p95's interval pairs each case's run with the empty Go binary's of
// the same round: a case that is the floor plus 2 ms in every round is +2
// ms over it in every resample, and one drawn apart from it is not.
func TestP95Interval(t *testing.T) {
	var runs []invocationRun
	for r := 1; r <= 200; r++ {
		ms := 7 + float64((r*37)%50)/10 // 7 to 11.9 ms, spread over the rounds
		runs = append(runs,
			invocationRun{Case: floorGo, Round: r, Ms: ms},
			invocationRun{Case: "shifted", Round: r, Ms: ms + 2},
			invocationRun{Case: "flat", Round: r, Ms: 9})
	}
	if lo, hi, ok := p95Interval(runs, "shifted"); !ok || math.Abs(lo-2) > 1e-9 || math.Abs(hi-2) > 1e-9 {
		t.Errorf("the floor plus 2 ms: %v to %v (%v), want exactly +2", lo, hi, ok)
	}
	// A flat 9 ms against a floor whose p95 is near 11.7: about −2.7 ms,
	// which the resampled floor's p95 moves.
	if lo, hi, ok := p95Interval(runs, "flat"); !ok || lo >= hi || hi > -2 || lo < -3.5 {
		t.Errorf("a flat 9 ms: %v to %v (%v), want an interval around -2.7", lo, hi, ok)
	}
	if got := p95Over(runs, "shifted", 2); got != "+2.00 ms (+2.0 to +2.0)" {
		t.Errorf("p95Over = %q", got)
	}
	if _, _, ok := p95Interval(runs[:12], "shifted"); ok {
		t.Error("four rounds gave an interval")
	}
}

// The table's commit says "with changes" for an edit the binaries are
// built from, not for the docs the run itself rewrites.
func TestCommitChanges(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("README.md", "table\n")
	write("main.go", "package main\n")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	t.Chdir(dir)
	if c := commit(); !strings.HasPrefix(c, "commit ") || strings.Contains(c, "changes") {
		t.Errorf("a clean checkout: %q", c)
	}
	write("README.md", "another table\n")
	if c := commit(); strings.Contains(c, "changes") {
		t.Errorf("the docs edited: %q, want no changes", c)
	}
	write("main.go", "package main // edited\n")
	if c := commit(); !strings.HasSuffix(c, " with changes") {
		t.Errorf("the code edited: %q, want with changes", c)
	}
}
