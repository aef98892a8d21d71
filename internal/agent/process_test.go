package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestParentOf(t *testing.T) {
	procRoot = t.TempDir()
	defer func() { procRoot = "/proc" }()
	for pid, stat := range map[string]string{
		"10": "10 (claude) S 1 10 10 0 -1",
		"11": "11 (sh -c (pulse) x) S 10 11 11 0 -1", // a comm with spaces and parentheses
		"12": "garbage",
	} {
		os.MkdirAll(filepath.Join(procRoot, pid), 0o755)
		os.WriteFile(filepath.Join(procRoot, pid, "stat"), []byte(stat), 0o644)
	}
	for pid, want := range map[int]int{10: 1, 11: 10, 12: 0, 13: 0} {
		if got := parentOf(pid); got != want {
			t.Errorf("parentOf(%d) = %d, want %d", pid, got, want)
		}
	}
}

// Claude Code's <config>/sessions/<pid>.json names the session its process runs.
func TestClaudeOwns(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sessions"), 0o700)
	os.WriteFile(filepath.Join(dir, "sessions", "40.json"), []byte(`{"pid":40,"sessionId":"abc-def"}`), 0o600)
	getenv := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return dir
		}
		return ""
	}
	owns := claude.Owns
	if !owns(40, "abc-def", getenv) || owns(40, "abc", getenv) || owns(41, "abc-def", getenv) || owns(40, "", getenv) {
		t.Error("claude.Owns")
	}
	if (&Dialect{}).Process("abc-def", getenv) != 0 {
		t.Error("a dialect that cannot tell found a process")
	}
}

// readStat reads a stat file whole, even one longer than any real one, and
// Remember keeps what ProcStat then returns, the walk up from this test's
// process included.
func TestReadStat(t *testing.T) {
	long := "20 (claude) S 1" + strings.Repeat(" 18446744073709551615", 60) // longer than any real one
	procRoot = t.TempDir()
	os.MkdirAll(filepath.Join(procRoot, "20"), 0o755)
	os.WriteFile(filepath.Join(procRoot, "20", "stat"), []byte(long), 0o644)
	got, err := readStat(20)
	procRoot = "/proc"
	if err != nil || string(got) != long {
		t.Fatalf("readStat = %q, %v; want the %d bytes written", got, err, len(long))
	}
	if _, err := readStat(-1); err == nil {
		t.Error("readStat of no process: no error")
	}

	if runtime.GOOS != "linux" {
		return // no /proc to walk up (under Wine, Z:\proc is Linux's, with Linux's pids)
	}
	Remember(os.Getpid())
	defer Remember(0)
	if len(remembered) < 2 {
		t.Fatalf("Remember kept %d processes, want this one and its parent at least", len(remembered))
	}
	want, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(os.Getppid()), "stat"))
	if b, _ := ProcStat(os.Getppid()); !bytes.Equal(b, want) {
		t.Errorf("ProcStat(parent) = %q, want %q", b, want)
	}
}

// What a warm worker pays, per event, before it lets the agent go: the
// stat files of the walk up from the hook's process (the tests' walk is
// this process's).
func BenchmarkRemember(b *testing.B) {
	for b.Loop() {
		Remember(os.Getpid())
	}
	b.ReportMetric(float64(len(remembered)), "processes")
	Remember(0)
}
