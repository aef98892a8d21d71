package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// Droid's Stop names a record (message_id) and carries no text: the
// recorded sessions' Stop payloads, looked up in their transcripts, tell an
// answer from a failed request and a cancelled tool.
func TestDroidTurnEndRecorded(t *testing.T) {
	for _, c := range []struct {
		dir  string
		end  transcript.DroidEnd
		text string
	}{
		{"", transcript.DroidAnswered, "All three steps are done: I ran a command, wrote notes.txt and read it back."},
		{"tool-errors", transcript.DroidAnswered, "Both steps failed as planned."},
		{"exec-permission", transcript.DroidAnswered, "Exec ended early: insufficient permission to proceed. Re-run with --auto medium or --auto high. For destructive commands, use --skip-permissions-unsafe."},
		{"api-error", transcript.DroidFailed, "BYOK Error: Requested model was not found on the API provider\n\nIf this persists, verify your custom model configuration in settings."},
		{"tui", transcript.DroidAnswered, "All three steps are done: I ran a command, wrote notes.txt and read it back."},
		{"tui-refusal", transcript.DroidCancelled, "Tool execution cancelled by user"},
		{"tui-interrupt", transcript.DroidCancelled, "Error: Tool execution cancelled by user"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			stops, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "droid-0.225.1", c.dir, "*-Stop.json"))
			if len(stops) != 1 {
				t.Fatalf("%d Stop payloads", len(stops))
			}
			b, err := os.ReadFile(stops[0])
			if err != nil {
				t.Fatal(err)
			}
			id := gjson.GetBytes(b, "message_id").Str
			path := filepath.Join("..", "..", "testdata", "transcripts", "droid-0.225.1", c.dir, "session.jsonl")
			end, text, found, err := transcript.DroidTurnEnd(path, id, transcript.TailLimits{})
			if err != nil || !found {
				t.Fatalf("DroidTurnEnd(%s): found %v, %v", id, found, err)
			}
			if end != c.end || text != c.text {
				t.Errorf("got %d %q, want %d %q", end, text, c.end, c.text)
			}
		})
	}
}

// At Stop the record is the transcript's last line but for a torn one;
// an id that is nowhere, or none, finds nothing.
func TestDroidTurnEndEdges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	lines := strings.Join([]string{
		`{"type":"message","id":"a1","message":{"role":"assistant","content":[{"type":"text","text":"first"}]}}`,
		`{"type":"message","id":"u1","parentId":"a1","message":{"role":"user","content":[{"type":"text","text":"next"}]}}`,
		`{"type":"message","id":"a2","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"one"},{"type":"tool_use","id":"t","name":"Read","input":{}},{"type":"text","text":"two"}]}}`,
		`{"type":"message","id":"h","parentId":"a2","message":{"role":"user","content":[],"hookEventName":"Stop"`,
	}, "\n")
	os.WriteFile(path, []byte(lines), 0o600)
	for _, c := range []struct {
		id    string
		found bool
		text  string
	}{
		{"a2", true, "one\n\ntwo"},
		{"a1", true, "first"}, // named as parentId by u1 first: passed over
		{"zz", false, ""},
		{"", false, ""},
	} {
		end, text, found, err := transcript.DroidTurnEnd(path, c.id, transcript.TailLimits{})
		if err != nil || found != c.found || text != c.text || (found && end != transcript.DroidAnswered) {
			t.Errorf("%q: %d %q %v %v, want %q %v", c.id, end, text, found, err, c.text, c.found)
		}
	}
	if _, _, _, err := transcript.DroidTurnEnd(filepath.Join(dir, "none.jsonl"), "a1", transcript.TailLimits{}); !os.IsNotExist(err) {
		t.Errorf("a missing transcript: %v", err)
	}
}

// The burn is the settings file's running total: it only grows, a torn or
// missing file changes nothing, and a custom model shows as its name.
func TestDroidScan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	settings := transcript.DroidSettings(path)
	if settings != filepath.Join(dir, "s.settings.json") {
		t.Fatalf("DroidSettings: %s", settings)
	}
	os.WriteFile(path, nil, 0o600)
	var st store
	opt := transcript.Options{Format: transcript.Droid, Subagents: true}
	var none transcript.Session
	if _, err := none.Scan(path, opt); !os.IsNotExist(err) || none.Burn() != (transcript.Usage{}) {
		t.Fatalf("no settings file: %+v, %v", none.Burn(), err)
	}
	write := func(body string) { os.WriteFile(settings, []byte(body), 0o600) }
	write(`{"model":"custom:My Model-12","tokenUsage":{"inputTokens":5,"outputTokens":7,"cacheCreationTokens":11,"cacheReadTokens":13,"thinkingTokens":3},
	 "inclusiveTokenUsage":{"inputTokens":6,"outputTokens":8,"cacheCreationTokens":12,"cacheReadTokens":14}}`)
	s, res := st.call(t, path, opt)
	if want := (transcript.Usage{In: 6, Out: 8, CacheCreate: 12, CacheRead: 14}); s.Burn() != want || !res.Done || s.Model != "My Model" {
		t.Fatalf("with children: %+v %q %+v, want %+v", s.Burn(), s.Model, res, want)
	}
	var main store
	if s, _ := main.call(t, path, transcript.Options{Format: transcript.Droid}); s.Burn() != (transcript.Usage{In: 5, Out: 7, CacheCreate: 11, CacheRead: 13}) {
		t.Errorf("the session alone: %+v", s.Burn())
	}
	write(`{"model":"custom:My Model-12","tokenUsage":{"inputTokens":`) // mid-rewrite
	if s, res := st.call(t, path, opt); s.Burn() != (transcript.Usage{In: 6, Out: 8, CacheCreate: 12, CacheRead: 14}) || res.Done {
		t.Errorf("torn: %+v %+v", s.Burn(), res)
	}
	write(`{"model":"claude-sonnet-4-5-20250929","tokenUsage":{"inputTokens":20,"outputTokens":1,"cacheCreationTokens":12,"cacheReadTokens":100}}`)
	if s, _ := st.call(t, path, opt); s.Burn() != (transcript.Usage{In: 20, Out: 8, CacheCreate: 12, CacheRead: 100}) || s.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("grown: %+v %q", s.Burn(), s.Model)
	}
}
