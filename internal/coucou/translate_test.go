package coucou

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
)

func translate(t *testing.T, payload any, in Input) map[string]any {
	t.Helper()
	b, _ := json.Marshal(payload)
	line, _, ok := Translate(b, in)
	if !ok {
		t.Fatalf("not relayed: %s", b)
	}
	if len(line) > MaxLine {
		t.Fatalf("line of %d bytes", len(line))
	}
	var out map[string]any
	if err := json.Unmarshal(line, &out); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return out
}

func TestTranslateCaps(t *testing.T) {
	big := strings.Repeat("é", 200<<10) // 400 KiB
	huge := strings.Repeat("x", 300<<10)
	// A Write's content is rendered: kept whole up to 256 KiB.
	out := translate(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": "a", "content": strings.Repeat("y", 100<<10)}}, Input{})
	if c := out["tool_input"].(map[string]any)["content"].(string); len(c) != 100<<10 || out[diffTruncated] != nil {
		t.Errorf("a 100 KiB diff field was cut to %d", len(c))
	}
	// Beyond, cut on a rune boundary and flagged.
	out = translate(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"old_string": big, "new_string": big, "file_path": huge}}, Input{})
	in := out["tool_input"].(map[string]any)
	for _, k := range []string{"old_string", "new_string"} {
		s := in[k].(string)
		if len(s) > MaxDiffField+3 || !utf8.ValidString(s) || !strings.HasSuffix(s, "…") {
			t.Errorf("%s: %d bytes", k, len(s))
		}
	}
	if len(in["file_path"].(string)) != MaxField+3 || out[diffTruncated] != true {
		t.Errorf("file_path %d bytes, truncated %v", len(in["file_path"].(string)), out[diffTruncated])
	}
	// MultiEdit: 512 KiB in all across its edits.
	var edits []any
	for range 6 {
		edits = append(edits, map[string]any{"old_string": strings.Repeat("o", 200<<10), "new_string": "n"})
	}
	out = translate(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "MultiEdit",
		"tool_input": map[string]any{"file_path": "a", "edits": edits}}, Input{})
	total := 0
	for _, e := range out["tool_input"].(map[string]any)["edits"].([]any) {
		total += len(e.(map[string]any)["old_string"].(string))
	}
	if total > MaxDiffTotal+6*3 || total < MaxDiffTotal-MaxField || out[diffTruncated] != true {
		t.Errorf("diff total %d bytes", total)
	}
	// Not an edit: the same field is an ordinary string.
	out = translate(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"content": huge}}, Input{})
	if c := out["tool_input"].(map[string]any)["content"].(string); len(c) != MaxField+3 {
		t.Errorf("a PreToolUse content kept %d bytes", len(c))
	}
	// However many fields, the line fits the app's cap.
	many := map[string]any{"hook_event_name": "Stop"}
	for i := range 1000 {
		many[string(rune(0x4e00+i))] = strings.Repeat("m", 3000) // 1,000 fields of 2 KiB after the cap
	}
	if out := translate(t, many, Input{}); len(out) != 1001 {
		t.Errorf("fields were lost: %d", len(out))
	}
}

func TestTranslateNotAnObject(t *testing.T) {
	for _, p := range []string{"", "null", "[]", `"s"`, "{", "12"} {
		if _, _, ok := Translate([]byte(p), Input{}); ok {
			t.Errorf("%q relayed", p)
		}
	}
}

func TestTranslateTruncated(t *testing.T) {
	payload := `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"content":"xxxxx`
	out := translate(t, json.RawMessage(payload+`"}}`), Input{}) // sanity: whole, it relays
	if out["tool_input"] == nil {
		t.Fatal("whole payload")
	}
	line, _, ok := Translate([]byte(payload), Input{Truncated: true})
	var got map[string]any
	if !ok || json.Unmarshal(line, &got) != nil || got["session_id"] != "s1" || got["tool_name"] != "Write" || got["tool_input"] != nil {
		t.Errorf("salvaged %s", line)
	}
}

func TestValidAgent(t *testing.T) {
	for name, want := range map[string]bool{"gemini": true, "my-agent-2": true, "claude": false, "Gemini": false,
		"": false, "a_b": false, strings.Repeat("a", 24): true, strings.Repeat("a", 25): false} {
		if ValidAgent(name) != want {
			t.Errorf("ValidAgent(%q) = %v", name, !want)
		}
	}
}

// TestValidAgentIsTheAppsExpression holds the hand-written check to the
// app's validateAgent expression, on the edges a hand check gets wrong: a
// trailing newline ($ is the text's end), bytes of a multi-byte rune, upper
// case, the class's neighbours in ASCII.
func TestValidAgentIsTheAppsExpression(t *testing.T) {
	app := regexp.MustCompile(`^[a-z0-9-]{1,24}$`)
	names := []string{"", "-", "a", "a\n", "\na", "a b", "é", "aé", "a.b", "a/b", "a`", "a{", "a@", "a[", "A", "Z", "0", "9",
		":", "/", ",", ".", "_", strings.Repeat("z", 23), strings.Repeat("9", 24), strings.Repeat("-", 25), "gemini\x00", "claude", "claude2"}
	for c := 0; c < 256; c++ {
		names = append(names, string([]byte{byte(c)}), "x"+string([]byte{byte(c)}))
	}
	for _, name := range names {
		if want := app.MatchString(name) && name != "claude"; ValidAgent(name) != want {
			t.Errorf("ValidAgent(%q) = %v, the app's expression says %v", name, !want, want)
		}
	}
}

func FuzzTranslate(f *testing.F) {
	f.Add(`{"hook_event_name":"BeforeTool","toolCall":{"name":"x","args":{"CommandLine":"ls"}}}`, "gemini", "PreToolUse", false)
	f.Add(`{"toolArgs":"{\"a\":1}","workspace_roots":["/w"],"tool_response":"x"}`, "copilot", "preToolUse", true)
	f.Add(`{"hook_event_name":"PostToolUse","tool_name":"MultiEdit","tool_input":{"edits":[{"old_string":"a"}]}}`, "", "", false)
	f.Fuzz(func(t *testing.T, payload, agent, event string, truncated bool) {
		line, name, ok := Translate([]byte(payload), Input{Agent: agent, Event: event, Truncated: truncated})
		if !ok {
			return
		}
		var out map[string]any
		if err := json.Unmarshal(line, &out); err != nil {
			t.Fatalf("not JSON: %v: %s", err, line)
		}
		if len(line) > MaxLine {
			t.Fatalf("%d bytes", len(line))
		}
		for _, k := range dropped {
			if _, ok := out[k]; ok {
				t.Fatalf("%s relayed", k)
			}
		}
		if name != "" && out["hook_event_name"] != name {
			t.Fatalf("event %v, said %q", out["hook_event_name"], name)
		}
	})
}

// An agent's own edit tool (Gemini CLI's replace) is rendered as a diff, as
// Claude Code's Edit is: the dialect names it canonically.
func TestTranslateDiffByCanonicalTool(t *testing.T) {
	payload := []byte(`{"hook_event_name":"AfterTool","session_id":"g1","timestamp":"2026-11-30T12:00:00Z","tool_name":"replace",` +
		`"tool_input":{"file_path":"a.go","old_string":"` + strings.Repeat("o", 100<<10) + `","new_string":"n"}}`)
	ev := agent.Parse(agent.Input{Agent: "gemini", Payload: payload})
	line, _, ok := Translate(payload, Input{Parsed: &ev})
	var out map[string]any
	if !ok || json.Unmarshal(line, &out) != nil {
		t.Fatalf("not relayed: %s", line)
	}
	if out["tool_name"] != "replace" || len(out["tool_input"].(map[string]any)["old_string"].(string)) != 100<<10 {
		t.Errorf("Gemini's replace: tool %v, old_string cut to %d bytes", out["tool_name"], len(out["tool_input"].(map[string]any)["old_string"].(string)))
	}
}

// The line's event name: the agent's own when the app reads it, else its
// kind's; refinements the app has words for.
func TestAppName(t *testing.T) {
	for _, tc := range []struct {
		ev   agent.Event
		want string
	}{
		{agent.Event{Agent: "claude", Name: "PostToolUseFailure", Kind: agent.Interrupted}, "PostToolUseFailure"},
		{agent.Event{Agent: "claude", Name: "Notification", Kind: agent.Permission}, "Notification"},
		{agent.Event{Agent: "copilot", Name: "notification", Kind: agent.Permission}, "Notification"},
		{agent.Event{Agent: "copilot", Name: "permissionRequest", Kind: agent.Review}, "PermissionRequest"},
		{agent.Event{Agent: "gemini", Name: "AfterTool", Kind: agent.ToolEnd}, "PostToolUseFailure"},
		{agent.Event{Agent: "gemini", Name: "AfterTool", Kind: agent.ToolEnd, OK: true}, "PostToolUse"},
		{agent.Event{Agent: "cursor", Name: "stop", Kind: agent.Error}, "StopFailure"},
		{agent.Event{Agent: "droid", Name: "Stop", Kind: agent.Error}, "StopFailure"},
		{agent.Event{Agent: "droid", Name: "Stop", Kind: agent.TurnEnd}, "Stop"},
		{agent.Event{Agent: "codex", Name: "Interrupt", Kind: agent.Interrupted}, "Interrupt"},
		{agent.Event{Agent: "gemini", Name: "PreCompress", Kind: agent.Unknown}, "PreCompress"},
	} {
		if got := AppName(tc.ev); got != tc.want {
			t.Errorf("%s %s (%s): %s, want %s", tc.ev.Agent, tc.ev.Name, tc.ev.Kind, got, tc.want)
		}
	}
}

// Kimi Code's prompt is a list of parts (its recorded UserPromptSubmit):
// the app reads a string, the text.
func TestTranslateKimiPrompt(t *testing.T) {
	payload, err := os.ReadFile("../../testdata/agents/kimi-2.1.0/02-UserPromptSubmit.json")
	if err != nil {
		t.Fatal(err)
	}
	ev := agent.Parse(agent.Input{Agent: "kimi", Payload: payload})
	line, _, ok := Translate(payload, Input{Agent: "kimi", Parsed: &ev})
	if !ok {
		t.Fatal("not relayed")
	}
	if got := gjson.GetBytes(line, "prompt"); got.Type != gjson.String || got.Str != "Run the three hookwire steps." {
		t.Errorf("prompt = %s, want the text", got.Raw)
	}
}
