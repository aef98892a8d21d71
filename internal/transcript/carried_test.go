package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCarriedOpencode feeds each recorded opencode (and Kilo) session's payloads, in
// order, to one Session, as pulse-claude does one event at a time with its
// state saved between: the totals are each assistant message's tokens once
// (the plugin repeats a turn's messages on every event), with a subagent's
// messages only when subagents count.
func TestCarriedOpencode(t *testing.T) {
	for _, dir := range []string{"opencode-1.18.33", "opencode-1.18.33/tool-errors", "opencode-1.18.33/permission-refused",
		"opencode-1.18.33/subagent", "kilo-7.8.1"} {
		for _, subagents := range []bool{true, false} {
			files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", dir, "[0-9]*.json"))
			if len(files) == 0 {
				t.Fatalf("%s: no recordings", dir)
			}
			var s Session
			type msg struct {
				ID, Model, SessionID string
				Tokens               struct {
					Input, Output, Reasoning int64
					Cache                    struct{ Read, Write int64 }
				}
			}
			last := map[string]msg{}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var p struct{ Messages []msg }
				if err := json.Unmarshal(b, &p); err != nil {
					t.Fatal(err)
				}
				for _, m := range p.Messages {
					last[m.ID] = m
				}
				// A round trip through the saved state, as between hooks.
				enc, _ := s.MarshalBinary()
				var next Session
				if err := next.UnmarshalBinary(enc); err != nil {
					t.Fatal(err)
				}
				next.mem = s.mem
				s = next
				if err := s.Carried(b, Opencode, subagents); err != nil {
					t.Fatal(err)
				}
			}
			var want Usage
			for _, m := range last {
				if m.SessionID != "" && !subagents {
					continue
				}
				k := m.Tokens
				want = want.Add(Usage{In: k.Input, Out: k.Output + k.Reasoning, CacheCreate: k.Cache.Write, CacheRead: k.Cache.Read})
			}
			if want == (Usage{}) {
				t.Fatalf("%s: the recordings carry no tokens", dir)
			}
			if got := s.Burn(); got != want {
				t.Errorf("%s (subagents %v): burn %+v, want %+v", dir, subagents, got, want)
			}
			if s.Model != "claude-sonnet-4-5" && s.Model != "scripted-model" {
				t.Errorf("%s: model %q", dir, s.Model)
			}
		}
	}
}

// TestCarriedGrows: a message whose figures grow between two payloads (an
// update after its first step) adds only the increase; one that comes again
// with the same figures adds nothing; a payload of another format, or not
// JSON, adds nothing.
func TestCarriedGrows(t *testing.T) {
	var s Session
	p := func(out int) []byte {
		b, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{
			"id": "msg_1", "created": 1000, "model": "m",
			"tokens": map[string]any{"input": 5, "output": out, "reasoning": 2, "cache": map[string]any{"read": 7, "write": 3}},
		}}})
		return b
	}
	for _, b := range [][]byte{p(10), p(10), p(30), p(30), []byte(`{"messages":`)} {
		if err := s.Carried(b, Opencode, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Carried(p(99), Qwen, true); err != nil {
		t.Fatal(err)
	}
	if want := (Usage{In: 5, Out: 32, CacheCreate: 3, CacheRead: 7}); s.Burn() != want {
		t.Errorf("burn %+v, want %+v", s.Burn(), want)
	}
}
