package agent

import (
	"os"
	"path/filepath"
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

// readStat reads a stat file whole, even one longer than any real one.
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

}
