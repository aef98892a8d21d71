package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transcript"
)

// Qwen Code's turns, in its recorded chats, as Copilot CLI's are followed:
// the turn has ended once an assistant record that calls no function is
// read, since the user record that opened it; a chat cut before its answer
// has not ended, and neither has one whose tool call was cancelled.
func TestQwenTurns(t *testing.T) {
	const dir = "../../testdata/transcripts/qwen-0.24.4/"
	main, err := os.ReadFile(dir + "chats-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	scan := func(data []byte) *transcript.Session {
		t.Helper()
		path := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(path, data, 0o600)
		var s transcript.Session
		if _, err := s.Scan(path, transcript.Options{Format: transcript.Qwen}); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	s := scan(main)
	final := time.Date(2026, 11, 30, 17, 8, 49, 550e6, time.UTC).UnixMilli() // the answer's record
	if !s.TurnEnded || s.FinalTS != final || !s.EndedSince(final) || s.EndedSince(final+1) {
		t.Errorf("whole chat: ended %v at %d, want %d", s.TurnEnded, s.FinalTS, final)
	}
	// Up to the last tool's result: the answer is still to come.
	cut := bytes.LastIndex(main, []byte(`"type":"tool_result"`))
	cut += bytes.IndexByte(main[cut:], '\n') + 1
	if s := scan(main[:cut]); s.TurnEnded {
		t.Errorf("cut before the answer: ended at %d", s.FinalTS)
	}
	// The next prompt opens a new turn.
	next := append(append([]byte(nil), main...), []byte(`{"uuid":"x","sessionId":"s","timestamp":"2026-11-30T17:09:00.000Z","type":"user","message":{"role":"user","parts":[{"text":"Again."}]}}`+"\n")...)
	if s := scan(next); s.TurnEnded {
		t.Errorf("a new prompt: still ended")
	}
	perm, err := os.ReadFile(dir + "permission-prompt/chats-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if s := scan(perm); s.TurnEnded {
		t.Errorf("the cancelled call's chat: ended at %d", s.FinalTS)
	}
}
