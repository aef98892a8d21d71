package testkit

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The reconcile model dequeues a stuck session when one of its
// transcript's last 5 lines is a user or assistant entry newer than the
// stuck, as daemon/reconcile.ts does; anything else leaves it queued.
func TestTrailBossReconcile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
		return p
	}
	older := `{"type":"message","timestamp":"2026-11-30T17:11:10.800Z","message":{"role":"assistant"}}`
	// Droid's record of the Stop hook, written when the hook is done.
	hook := `{"type":"message","timestamp":"2026-11-30T17:11:10.833Z","message":{"role":"user","content":[],"hookEventName":"Stop"}}`
	other := `{"type":"agent_turn_outcome","timestamp":"2026-11-30T17:11:11.000Z"}`
	claudeUser := `{"type":"user","timestamp":1796058671000}`
	cases := map[string]string{
		"hook":    write("hook.jsonl", older, hook, other),
		"claude":  write("claude.jsonl", older, claudeUser),
		"quiet":   write("quiet.jsonl", older, other, `{"torn`),
		"missing": filepath.Join(dir, "none.jsonl"),
		"far":     write("far.jsonl", hook, other, other, other, other, other),
	}
	tb := NewTrailBoss()
	for id, path := range cases {
		body := `{"type":"stuck","sessionId":"` + id + `","paneId":"%` + id + `","cwd":"/w","transcriptPath":` + strconv.Quote(path) +
			`,"reason":"stopped","message":"m","timestamp":1796058670811}`
		if status, reply := tb.Answer("POST", "/event/normalized", []byte(body)); status != 200 {
			t.Fatalf("%s: %d %s", id, status, reply)
		}
	}
	got := tb.Reconcile()
	if want := []string{"claude", "hook"}; !slices.Equal(got, want) {
		t.Errorf("dequeued %v, want %v", got, want)
	}
	if n := len(tb.stuck()); n != 3 {
		t.Errorf("%d still queued, want 3", n)
	}
	if again := tb.Reconcile(); !slices.Equal(again, []string{"claude", "hook"}) {
		// last_stuck_at stays: the sweep finds them again, and dequeuing
		// what is dequeued changes nothing.
		t.Errorf("second sweep: %v", again)
	}
	if n := len(tb.stuck()); n != 3 {
		t.Errorf("%d still queued after a second sweep, want 3", n)
	}
}
