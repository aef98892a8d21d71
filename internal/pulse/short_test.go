package pulse

import "testing"

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
