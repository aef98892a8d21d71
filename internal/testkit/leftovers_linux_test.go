package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// settleBin is a binDir holding a copy of sleep: its processes are the
// suite's to Leftovers when they carry runDir.
func settleBin(t *testing.T) (binDir, runDir string) {
	t.Helper()
	binDir, runDir = t.TempDir(), t.TempDir()
	b, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skip("no /bin/sleep")
	}
	if err := os.WriteFile(filepath.Join(binDir, "sleep"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return binDir, runDir
}

func startSh(t *testing.T, runDir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runDir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
}

// A chain whose processes each keep to the budget may run longer than it in
// all, and wait between them (plugin_queue.js's sh, which waits for the one
// before): Settle waits for the last.
func TestSettleWaitsForAChain(t *testing.T) {
	bin, run := settleBin(t)
	s := filepath.Join(bin, "sleep")
	startSh(t, run, s+" 0.4; "+s+" 0.4; /bin/sleep 0.3; "+s+" 0.4")
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if left := Settle(bin, run, 800*time.Millisecond); len(left) > 0 {
		t.Fatalf("Settle gave up on a chain of short processes: %v", left)
	}
	if d := time.Since(start); d < 1200*time.Millisecond {
		t.Errorf("Settle returned after %v, before the chain (1.5 s in all) had ended", d)
	}
	if left := append(Leftovers(bin, run), chained(bin, run)...); len(left) > 0 {
		t.Errorf("still there after Settle: %v", left)
	}
}

// One process that runs past the budget is reported, with its age, without
// waiting for it to end.
func TestSettleReportsAProcessPastItsBudget(t *testing.T) {
	bin, run := settleBin(t)
	startSh(t, run, filepath.Join(bin, "sleep")+" 30")
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	left := Settle(bin, run, 500*time.Millisecond)
	if len(left) != 1 || !strings.Contains(left[0], "sleep 30 (running for ") {
		t.Fatalf("Settle = %q, want the sleep with its age", left)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Settle took %v to report it", d)
	}
}

// Another user's XDG_RUNTIME_DIR (another script's) is not this one's.
func TestSettleOnlyThisRunDir(t *testing.T) {
	bin, run := settleBin(t)
	startSh(t, t.TempDir(), filepath.Join(bin, "sleep")+" 30")
	time.Sleep(100 * time.Millisecond)
	if left := Settle(bin, run, 200*time.Millisecond); len(left) > 0 {
		t.Fatalf("Settle = %q, want nothing: the sleep runs for another run dir", left)
	}
}

// A zombie of the suite's is the run's whose parent is: another script's
// agent, slow to reap its hooks, is not this script's leftover.
func TestLeftoversZombieByParent(t *testing.T) {
	bin, run := settleBin(t)
	b, err := os.ReadFile(filepath.Join(bin, "sleep"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "nb-hook"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	// The parent execs into sleep, which never reaps the nb-hook it had.
	startSh(t, run, filepath.Join(bin, "nb-hook")+" 0 & exec /bin/sleep 30")
	var left []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if left = Leftovers(bin, run); len(left) == 1 && strings.Contains(left[0], "[nb-hook] <defunct>") {
			break
		}
	}
	if len(left) != 1 || !strings.Contains(left[0], "[nb-hook] <defunct>") {
		t.Fatalf("Leftovers = %q, want the zombie of this run's parent", left)
	}
	if other := Leftovers(bin, t.TempDir()); len(other) > 0 {
		t.Errorf("another run dir's Leftovers = %q, want nothing: the zombie's parent is not of that run", other)
	}
}
