package main

import (
	"flag"
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

// A percentile's interval pairs each case's run with the empty Go binary's
// of the same round: a case that is the floor plus 2 ms in every round is +2
// ms over it in every resample, at the p50 as at the p95, and one drawn
// apart from it is not.
func TestPctInterval(t *testing.T) {
	var runs []invocationRun
	for r := 1; r <= 200; r++ {
		ms := 7 + float64((r*37)%50)/10 // 7 to 11.9 ms, spread over the rounds
		runs = append(runs,
			invocationRun{Case: floorGo, Round: r, Ms: ms},
			invocationRun{Case: "shifted", Round: r, Ms: ms + 2},
			invocationRun{Case: "flat", Round: r, Ms: 9})
	}
	for _, p := range []float64{0.5, 0.95} {
		if lo, hi, ok := pctInterval(runs, "shifted", p); !ok || math.Abs(lo-2) > 1e-9 || math.Abs(hi-2) > 1e-9 {
			t.Errorf("p%v, the floor plus 2 ms: %v to %v (%v), want exactly +2", p*100, lo, hi, ok)
		}
	}
	// A flat 9 ms against a floor whose p95 is near 11.7: about −2.7 ms,
	// which the resampled floor's p95 moves.
	if lo, hi, ok := pctInterval(runs, "flat", 0.95); !ok || lo >= hi || hi > -2 || lo < -3.5 {
		t.Errorf("a flat 9 ms: %v to %v (%v), want an interval around -2.7", lo, hi, ok)
	}
	if got := over(runs, "shifted", 0.95); got != "+2.00 ms (+2.0 to +2.0)" {
		t.Errorf("over at the p95 = %q", got)
	}
	if got := over(runs, "shifted", 0.5); got != "+2.00 ms (+2.0 to +2.0)" {
		t.Errorf("over at the p50 = %q", got)
	}
	if _, _, ok := pctInterval(runs[:12], "shifted", 0.95); ok {
		t.Error("four rounds gave an interval")
	}
}

// The table's commit says "with changes" for an edit the binaries are
// built from, not for the docs the run itself rewrites.
func TestCommitChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		// Under Wine (scripts/wintest) there is no Windows git.
		t.Skipf("needs git on PATH: %v", err)
	}
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

// The tables give hookwire's figures and the floors', nothing else: the
// sessions' columns are the floor, the empty Go binary as the hooks and
// hookwire; the README's event rows are hookwire's slowest event (by its
// p95) at the p50 and the p95 against the empty Go binary's, and the
// per-event table has both differences.
func TestTables(t *testing.T) {
	var results []result
	for r := 1; r <= 5; r++ {
		for arm, ms := range map[string]float64{"none": 700, "truec": 780, "goc": 800, "hookwire": 810} {
			res := result{Agent: "claude", Arm: arm, Round: r, Ms: ms + float64(r), CPU: ms + 200}
			if arm == "hookwire" {
				for range 6 {
					res.Hooks = append(res.Hooks, hookRun{Binary: "hookwire", Event: "PreToolUse", Ms: 5})
				}
			}
			results = append(results, res)
		}
	}
	var inv []invocationRun
	for r := 1; r <= 10; r++ {
		inv = append(inv,
			invocationRun{Case: floorGo, Round: r, Ms: 4 + float64(r)/10},
			invocationRun{Case: floorTrue, Round: r, Ms: 2},
			invocationRun{Case: floorInit, Round: r, Ms: 5 + float64(r)/10},
			invocationRun{Case: hookwireLabel + ", Claude Code PreToolUse", Round: r, Ms: 6 + float64(r)/10},
			invocationRun{Case: hookwireLabel + ", Claude Code Stop", Round: r, Ms: 7 + float64(r)/10},
			invocationRun{Case: "nb-hook, Claude Code Stop", Round: r, Ms: 20})
	}
	caseOrder = nil
	for _, r := range inv[:6] {
		caseOrder = append(caseOrder, r.Case)
	}
	got := short(results, inv, 5, 1)
	want := "| what (median of interleaved rounds; percentiles of single runs) | floor | an empty Go binary as the hooks | hookwire | over the floor | goal |\n" +
		"|---|---:|---:|---:|---:|---:|\n" +
		"| Claude Code 2.1.328, a 1-tool session, five surfaces (6 hook events; rounds: 5): wall | 783 ms (`/bin/true` hooks) | 803 ms, +20 ms (+3.3 ms an event; 95 % interval +20 to +20) | 813 ms | +30 ms (+5.0 ms an event; 95 % interval +30 to +30) | ≤ +40 ms |\n" +
		"| Claude Code 2.1.328, a 1-tool session, five surfaces (6 hook events; rounds: 5): CPU of the agent and its hooks | 980 ms (`/bin/true` hooks) | 1000 ms, +20 ms (+3.3 ms an event; 95 % interval +20 to +20) | 1010 ms | +30 ms (+5.0 ms an event; 95 % interval +30 to +30) |  |\n" +
		"| hookwire's slowest event by its p95, spawn to exit: p50 (10 runs each) | 4.55 ms (empty static Go binary) | | 7.55 ms (Claude Code Stop) | +3.00 ms (+3.0 to +3.0) |  |\n" +
		"| hookwire's slowest event by its p95, spawn to exit: p95 (10 runs each) | 4.96 ms (empty static Go binary) | | 7.96 ms (Claude Code Stop) | +3.00 ms (+3.0 to +3.0) | ≤ +3 ms |\n" +
		"| hookwire's packages, main returning at once, spawn to exit: p50 (10 runs) | 4.55 ms (empty static Go binary) | | 5.55 ms | +1.00 ms (+1.0 to +1.0) | |\n" +
		"| hookwire's packages, main returning at once, spawn to exit: p95 (10 runs) | 4.96 ms (empty static Go binary) | | 5.96 ms | +1.00 ms (+1.0 to +1.0) | |\n"
	if got != want {
		t.Errorf("short:\n%s\nwant:\n%s", got, want)
	}
	table := invocationTable(inv)
	for _, line := range []string{
		"| command, event | wall p50 | wall p95 | CPU p50 | page faults p50 | p50 over the empty Go binary's (95 % interval) | p95 over the empty Go binary's (goal ≤ +3 ms; 95 % interval) |",
		"| empty static Go binary | 4.55 ms | 4.96 ms | 0.00 ms | 0 | +0.00 ms | +0.00 ms |",
		"| hookwire (five surfaces), Claude Code PreToolUse | 6.55 ms | 6.96 ms | 0.00 ms | 0 | +2.00 ms (+2.0 to +2.0) | +2.00 ms (+2.0 to +2.0) |",
	} {
		if !strings.Contains(table, line+"\n") {
			t.Errorf("the per-event table has no line %q:\n%s", line, table)
		}
	}
}

// -issue42 sets what the command line did not: a flag given keeps its
// value, the others take the preset's; its usage says the preset as a
// command line would.
func TestPreset(t *testing.T) {
	fs := flag.NewFlagSet("livebench", flag.ContinueOnError)
	agents := fs.String("agents", "claude,gemini,codex", "")
	runs := fs.Int("runs", 7, "")
	five := fs.Bool("five", true, "")
	combined := fs.Bool("combined", false, "")
	if err := fs.Parse([]string{"-runs", "3"}); err != nil {
		t.Fatal(err)
	}
	preset42 := [][2]string{{"agents", "claude,gemini"}, {"five", "false"}, {"combined", "true"}, {"runs", "15"}}
	if err := preset(fs, preset42); err != nil {
		t.Fatal(err)
	}
	if *agents != "claude,gemini" || *runs != 3 || *five || !*combined {
		t.Errorf("agents %q, runs %d, five %v, combined %v; want claude,gemini, 3 (given), false, true", *agents, *runs, *five, *combined)
	}
	if got := presetFlags(preset42); got != "-agents claude,gemini -five=false -combined -runs 15" {
		t.Errorf("presetFlags = %q", got)
	}
	if err := preset(fs, [][2]string{{"nosuch", "1"}}); err == nil {
		t.Error("an unknown flag in a preset: no error")
	}
}
