package pulse

import (
	"os"
	"path/filepath"
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

func TestOwnsSession(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sessions"), 0o700)
	os.WriteFile(filepath.Join(dir, "sessions", "40.json"), []byte(`{"pid":40,"sessionId":"abc-def"}`), 0o600)
	if !ownsSession(dir, 40, "abc-def") || ownsSession(dir, 40, "abc") || ownsSession(dir, 41, "abc-def") || ownsSession(dir, 40, "") {
		t.Error("ownsSession")
	}
}

// The short id names Pulse's slot: one per session, for every id shape.
func TestShort(t *testing.T) {
	for in, want := range map[string]string{
		// Claude Code, Gemini CLI, Copilot CLI: UUIDv4, the reference's first segment.
		"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11": "d63ac083",
		// Codex: UUIDv7, its random end.
		"01a22ce7-8a3e-7ff1-8d87-a521c73f1cd1": "c73f1cd1",
		"plain":                                "plain",
		"":                                     "",
		// Any other shape with a dash: a hash.
		"d63ac083-c016-4a5e": "f4c2251e",
		"-x":                 "4bcd60c0",
	} {
		if got := short(in); got != want {
			t.Errorf("short(%q) = %q, want %q", in, got, want)
		}
	}
	// Codex sessions started within the same minute share their first
	// segment; within the same millisecond their second too.
	a, b := "01a22ce7-8a3e-7ff1-8d87-a521c73f1cd1", "01a22ce7-8a3e-7ff1-9c01-5b7e02d944aa"
	if short(a) == short(b) {
		t.Errorf("two Codex sessions share the slot %q", short(a))
	}
	// Ids that share a first segment but are not UUIDs.
	if short("ci-build-1") == short("ci-build-2") {
		t.Error("ci-build-1 and ci-build-2 share a slot")
	}
}
