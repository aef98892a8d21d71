package live

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShapeDiff(t *testing.T) {
	var b baseline
	b.add(shapeOf([]byte(`{"session_id":"a","hook_event_name":"Stop","error":{"message":"x"},"tool_input":{"command":"ls"}}`)))
	b.add(shapeOf([]byte(`{"session_id":"b","hook_event_name":"Stop","reason":"done","tool_input":{"file_path":"f"}}`)))
	for _, c := range []struct{ payload, want string }{
		// An optional key, absent; another tool's arguments: no change.
		{`{"session_id":"c","hook_event_name":"Stop","tool_input":{"pattern":"p"}}`, ""},
		// A key never seen, one every payload had missing, a type changed.
		{`{"sessionId":"c","hook_event_name":"Stop","reason":7,"tool_input":{}}`, "+sessionId (string), -session_id, reason is number, was string"},
		{`{"session_id":"c","hook_event_name":"Stop","error":"boom","tool_input":{}}`, "error is string, was object"},
		{`{"session_id":"c","hook_event_name":"Stop","error":{"message":"m","code":3}}`, "+error.code (number), -tool_input"},
	} {
		if got := strings.Join(b.diff(shapeOf([]byte(c.payload))), ", "); got != c.want {
			t.Errorf("diff(%s) = %q, want %q", c.payload, got, c.want)
		}
	}
}

type collected struct{ errors, logs []string }

func (c *collected) Errorf(f string, a ...any) { c.errors = append(c.errors, fmt.Sprintf(f, a...)) }
func (c *collected) Logf(f string, a ...any)   { c.logs = append(c.logs, fmt.Sprintf(f, a...)) }

// The recordings of the pinned Claude Code, replayed as the recorder would
// have kept them: no change; then one payload renamed a field: the check
// fails once, naming the agent, the version and that payload.
func TestCheckShapes(t *testing.T) {
	claude := []agent{{"claude", "@anthropic-ai/claude-code", "2.1.328"}}
	dir := filepath.Join(moduleRoot, "testdata", "agents", "claude-2.1.328")
	root := t.TempDir()
	rec := filepath.Join(root, "claude_permission")
	if err := os.Mkdir(rec, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{"01-SessionStart.json", "04-PreToolUse.json", "05-PostToolUse.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(rec, fmt.Sprintf("claude-%s-%d.json", strings.TrimSuffix(f[3:], ".json"), i))
		if err := os.WriteFile(name, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var c collected
	checkShapes(&c, root, claude, claude)
	if len(c.errors) != 0 {
		t.Fatalf("the recordings themselves changed shape: %q", c.errors)
	}

	newer := []agent{{"claude", "@anthropic-ai/claude-code", "9.9.9"}}
	pre := filepath.Join(rec, "claude-PreToolUse-1.json")
	b, _ := os.ReadFile(pre)
	os.WriteFile(pre, []byte(strings.Replace(string(b), `"tool_use_id"`, `"toolUseId"`, 1)), 0o600)
	c = collected{}
	checkShapes(&c, root, newer, claude)
	if len(c.errors) != 1 {
		t.Fatalf("errors = %q, want one", c.errors)
	}
	for _, want := range []string{"claude 9.9.9", "script claude_permission", "claude-2.1.328", "+toolUseId (string), -tool_use_id", `"toolUseId"`} {
		if !strings.Contains(c.errors[0], want) {
			t.Errorf("the failure does not say %q:\n%s", want, c.errors[0])
		}
	}
}
