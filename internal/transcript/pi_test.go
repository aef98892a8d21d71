package transcript_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hookwire/hookwire/internal/transcript"
)

// Pi's recorded session file gives the exact usage the scripted API served:
// usage.input is already net of the cache read, output includes reasoning.
func TestPiBurn(t *testing.T) {
	const dir = "../../testdata/transcripts/pi-1.6.0/"
	var want struct {
		Scripted struct {
			Input, Output int64
			CacheRead     int64 `json:"cache_read"`
		}
	}
	b, err := os.ReadFile(dir + "usage.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var s transcript.Session
	if _, err := s.Scan(dir+"session.jsonl", transcript.Options{Format: transcript.Pi}); err != nil {
		t.Fatal(err)
	}
	got := s.Burn()
	if got.In != want.Scripted.Input || got.Out != want.Scripted.Output || got.CacheRead != want.Scripted.CacheRead || got.CacheCreate != 0 {
		t.Errorf("burn %+v, want in %d out %d cache read %d", got, want.Scripted.Input, want.Scripted.Output, want.Scripted.CacheRead)
	}
	if s.Model != "scripted-coder" {
		t.Errorf("model %q", s.Model)
	}
	// Read again, nothing is counted twice.
	if _, err := s.Scan(dir+"session.jsonl", transcript.Options{Format: transcript.Pi}); err != nil {
		t.Fatal(err)
	}
	if again := s.Burn(); again != got {
		t.Errorf("second scan: %+v, want %+v", again, got)
	}
}
