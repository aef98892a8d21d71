package transcript_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// The recorded session's record holds exactly what the scripted API served
// (usage.json): its input less the cache reads, its cache reads, its output.
func TestClineRecorded(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "transcripts", "cline-3.0.65")
	path := filepath.Join(dir, "sessions", "1796143172050_vnjkw", "1796143172050_vnjkw.json")
	u, err := os.ReadFile(filepath.Join(dir, "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	total := gjson.GetBytes(u, "scripted")
	want := transcript.Usage{In: total.Get("input").Int(), CacheRead: total.Get("cache_read").Int(), Out: total.Get("output").Int()}
	var s transcript.Session
	res, err := s.Scan(path, transcript.Options{Format: transcript.Cline})
	if err != nil || !res.Done {
		t.Fatal(res, err)
	}
	if s.Burn() != want || s.Model != "scripted-model" {
		t.Errorf("burn %+v model %q, want %+v", s.Burn(), s.Model, want)
	}
	// The run ended after its TaskComplete hook (16:39:42.239).
	hook := time.Date(2026, 12, 1, 16, 39, 42, 239e6, time.UTC).UnixMilli()
	if !s.EndedSince(hook) {
		t.Errorf("the record's end (%d) is not seen after the turn end's hook", s.FinalTS)
	}
}

// While the run goes on the record has no totals, and the turn is not over
// in it: a turn end waits; a torn record is read again later.
func TestClineScanRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, []byte(`{"status":"running","model":"m","metadata":{"title":"x"}}`), 0o600)
	var s transcript.Session
	if res, err := s.Scan(path, transcript.Options{Format: transcript.Cline}); err != nil || !res.Done || s.Burn() != (transcript.Usage{}) || s.EndedSince(0) {
		t.Fatalf("running: %+v %+v %v", s.Burn(), res, err)
	}
	os.WriteFile(path, []byte(`{"status":"completed","ended_at":"2026-12-01T16:39:42.651Z","metadata":{"usage":{"inputTokens":`), 0o600)
	if res, _ := s.Scan(path, transcript.Options{Format: transcript.Cline}); res.Done || s.EndedSince(0) {
		t.Errorf("torn: %+v", res)
	}
	os.WriteFile(path, []byte(`{"status":"completed","ended_at":"2026-12-01T16:39:42.651Z","model":"m","metadata":{"usage":{"inputTokens":100,"outputTokens":9,"cacheReadTokens":60,"cacheWriteTokens":30}}}`), 0o600)
	if s.Scan(path, transcript.Options{Format: transcript.Cline}); s.Burn() != (transcript.Usage{In: 10, Out: 9, CacheRead: 60, CacheCreate: 30}) || !s.EndedSince(0) {
		t.Errorf("completed: %+v", s.Burn())
	}
}
