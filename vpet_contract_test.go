package hookwire_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
)

// agentica's notify-sink contract, per event, as its documentation states it
// (docs/getting-started/notify-sink.md, the payload table; sink.py _EVENT_TITLES
// and _envelope at d3cee31): the title each event's payload gets by default,
// the keys it may carry and those a run of it always has here. Written from
// the documentation, not from vpet-notify's code.
type contractRow struct {
	event    string
	title    string
	allowed  []string // the payload whitelist for this event
	required []string // what this test's session always knows
}

var agenticaContract = []contractRow{
	{"run.started", "run started", []string{"title", "agent_name", "prompt"}, []string{"title", "prompt"}},
	{"run.completed", "run completed", []string{"title", "agent_name", "duration_seconds", "had_response", "answer", "answered_at"},
		[]string{"title", "duration_seconds", "had_response", "answer", "answered_at"}},
	{"run.failed", "run failed", []string{"title", "agent_name", "duration_seconds", "error"}, []string{"title", "duration_seconds", "error"}},
	{"run.cancelled", "run cancelled", []string{"title", "agent_name", "reason"}, []string{"title", "reason"}},
	{"tool.started", "tool started", []string{"title", "tool_name", "tool_call_id", "preview"}, []string{"title", "tool_name", "tool_call_id", "preview"}},
	{"tool.completed", "tool completed", []string{"title", "tool_name", "tool_call_id", "preview", "ok", "duration_seconds", "error"},
		[]string{"title", "tool_name", "tool_call_id", "ok", "duration_seconds"}},
}

// Each event vpet-notify sends keeps agentica's contract: the envelope's
// keys in _envelope's order (v 1, source, session_key, event, ts in Unix
// seconds, transport with ppid, payload), the event's default title, only
// the keys the payload table lists for the event, and the prompt and answer
// clipped as clip_text does (500 code points and "…"). The deliberate
// differences (docs/vpet.md's): source names the agent, not "agentica".
func TestVPetAgenticaContract(t *testing.T) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := append(baseEnv(dir), vpetPet(t, dir, "ok")...)
	const sid = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"
	long := strings.Repeat("桌宠", 300) // 600 runes
	run := func(payload string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "vpet-notify"))
		cmd.Env = env
		cmd.Stdin = strings.NewReader(`{"session_id":"` + sid + `","cwd":"/home/u/app",` + payload + `}`)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("vpet-notify: %v %q", err, out)
		}
	}
	start := time.Now()
	run(`"hook_event_name":"UserPromptSubmit","prompt":"` + long + `"`)
	run(`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_01"`)
	run(`"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_01","tool_response":{"stdout":"ok"}`)
	run(`"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"` + long + `"`)
	run(`"hook_event_name":"UserPromptSubmit","prompt":"again"`)
	run(`"hook_event_name":"StopFailure","error_type":"rate_limit","error":"Too many requests"`)
	run(`"hook_event_name":"UserPromptSubmit","prompt":"once more"`)
	run(`"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/home/u/app/a.go"},"tool_use_id":"toolu_02"`)
	run(`"hook_event_name":"SessionEnd","reason":"other"`)

	b, _ := os.ReadFile(filepath.Join(dir, "vpet.got"))
	seen := map[string]bool{}
	n := 0
	for line := range bytes.Lines(b) {
		var env struct {
			keys    []string
			V       json.RawMessage `json:"v"`
			Source  string          `json:"source"`
			Session string          `json:"session_key"`
			Event   string          `json:"event"`
			TS      float64         `json:"ts"`
			Trans   map[string]any  `json:"transport"`
			Payload map[string]any  `json:"payload"`
		}
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		env.keys = topKeys(t, line)
		if want := []string{"v", "source", "session_key", "event", "ts", "transport", "payload"}; !slices.Equal(env.keys, want) {
			t.Errorf("%s: envelope keys %v, want %v", env.Event, env.keys, want)
		}
		if string(env.V) != "1" || env.Source != "claude-code" || env.Session != sid {
			t.Errorf("%s: v %s, source %q, session_key %q", env.Event, env.V, env.Source, env.Session)
		}
		if at := time.Unix(0, int64(env.TS*1e9)); at.Before(start.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("%s: ts %f is not this run's time in Unix seconds", env.Event, env.TS)
		}
		if _, ok := env.Trans["ppid"].(float64); !ok || env.Trans["cwd"] != "/home/u/app" {
			t.Errorf("%s: transport %v", env.Event, env.Trans)
		}
		i := slices.IndexFunc(agenticaContract, func(c contractRow) bool { return c.event == env.Event })
		if i < 0 {
			t.Errorf("event %q is not one of agentica's", env.Event)
			continue
		}
		c := agenticaContract[i]
		seen[c.event] = true
		n++
		if env.Payload["title"] != c.title {
			t.Errorf("%s: title %v, want %q", c.event, env.Payload["title"], c.title)
		}
		for k := range env.Payload {
			if !slices.Contains(c.allowed, k) {
				t.Errorf("%s: payload key %q is not in agentica's table for it (%v)", c.event, k, c.allowed)
			}
		}
		if c.event == "tool.completed" && env.Payload["ok"] == false {
			continue // the call cut short by the session's end: its duration is not known
		}
		for _, k := range c.required {
			if _, ok := env.Payload[k]; !ok {
				t.Errorf("%s: payload lacks %q: %s", c.event, k, line)
			}
		}
		// The first run's prompt and answer are 600 code points: clip_text
		// keeps 500 and marks the cut.
		clipped := string([]rune(long)[:500]) + "…"
		if c.event == "run.started" && env.Payload["prompt"] != clipped && strings.HasPrefix(env.Payload["prompt"].(string), "桌") ||
			c.event == "run.completed" && env.Payload["answer"] != clipped {
			t.Errorf("%s: not clipped as clip_text does: %s", c.event, line)
		}
	}
	if n != 10 {
		t.Errorf("%d events sent, want 10 (3 run.started, 2 tool.started, 2 tool.completed, run.completed, run.failed, run.cancelled)", n)
	}
	for _, c := range agenticaContract {
		if !seen[c.event] {
			t.Errorf("%s was never sent", c.event)
		}
	}
}

// topKeys are a JSON object's keys in the order written.
func topKeys(t *testing.T, obj []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.Token() // {
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}
