package coucou

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
)

// The README promises that a tool's output never goes to the app. Every
// payload the real agents sent (testdata/agents, each agent's every
// session) goes through what nb-hook does with it (the dialect's reading,
// notShown, Translate), and the line it relays must hold none of the
// tool's output. Two oracles: what each agent's recordings show a tool's
// output to be, written out here by hand (each must be in some payload, or
// the case proves nothing); and whatever sits at the dialect's ToolOutput
// paths.
var toolOutputs = map[string][]string{
	// Read's {type, file{content, numLines}}; PostToolBatch's tool_calls
	// (1.0.102 sends each call's output again).
	"claude-2.1.328": {`"numLines"`, `"tool_response"`, `1\thookwire live notes`},
	"codex-0.169.0":  {`"hookwire-step-one\n"`, `"hookwire live notes\n"`, `"tool_response"`},
	"copilot-1.0.102": {`<shellId: 0 completed with exit code 0>`, `Created file /home/user/proj/notes.txt with 20 characters`,
		`"textResultForLlm"`},
	"droid-0.225.1": {`[Process exited with code 0]`, `{\"success\":true`, `"tool_response"`},
	"gemini-0.61.0": {`"llmContent"`, `Process Group PGID`, `"tool_response"`},
	"qwen-0.24.4":   {`"llmContent"`, `"response_parts"`, `Process Group PGID`},
	"opencode-1.18.33": {`(End of file - total 1 lines)`, `Wrote file successfully.`, `Edit applied successfully.`,
		`<task_result>`},
	"kimi-2.1.0": {`Wrote 20 bytes to`, `1\thookwire live notes`},
	"kilo-7.8.1": {`(End of file - total 1 lines)`, `Wrote file successfully.`},
	// Pi's extension hands over no tool output at all (a failed tool's
	// last line, Pi's own words, is its error): the ToolOutput paths only.
	"pi-1.6.0": {},
	// Built from the bundle: a command's output, a saved file's report,
	// the turn's changed files (the conversation data and the raw
	// exchange at Stop).
	"auggie-0.36.0-from-bundle": {`hookwire-step-one\n</stdout>`, `File saved.`, `"agentCodeResponse"`, `"changedFiles"`},
	// tool_result.output, and postToolUse.result: the same as a string.
	"cline-3.0.65": {`"hookwire step 1\n"`, `File created successfully at:`, `1 | hookwire notes`},
	// Written from the agents' source, documentation or guide.
	"grok-19d42e35-from-source": {`"toolResult"`, `"exitCode"`},
	"devin-from-docs":           {`"step 1\n"`, `"tool_response"`},
	"qoder-1.1.52-from-guide":   {},
}

func TestNoToolOutput(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/agents/*")
	seen := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		version := filepath.Base(dir)
		seen++
		t.Run(version, func(t *testing.T) {
			markers, ok := toolOutputs[version]
			if !ok {
				t.Fatalf("no tool output named for %s: add its markers", version)
			}
			base, _, _ := strings.Cut(version, "-from-") // not recorded: Auggie's, Grok's, …
			if i := strings.LastIndex(base, "-"); i > 0 {
				base = base[:i] // the version
			}
			name := agent.Agent(base)
			d, known := agent.For(name)
			if !known {
				t.Fatalf("no dialect for %s", name)
			}
			found := map[string]bool{}
			relayed := 0
			filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
				if err != nil || e.IsDir() || !strings.HasSuffix(path, ".json") {
					return err
				}
				payload, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range markers {
					if strings.Contains(string(payload), m) {
						found[m] = true
					}
				}
				line := relay(t, d, path, payload)
				if line == nil {
					return nil
				}
				relayed++
				rel, _ := filepath.Rel(dir, path)
				for _, m := range markers {
					if strings.Contains(string(line), m) {
						t.Errorf("%s: the line holds the tool's output %q:\n%s", rel, m, line)
					}
				}
				for _, out := range outputs(t, payload, d.ToolOutput()) {
					if strings.Contains(string(line), out) {
						t.Errorf("%s: the line holds the tool's output %s:\n%s", rel, out, line)
					}
				}
				return nil
			})
			for _, m := range markers {
				if !found[m] {
					t.Errorf("%q is in no recorded payload: it proves nothing", m)
				}
			}
			if relayed == 0 {
				t.Errorf("nothing relayed")
			}
		})
	}
	if seen < len(toolOutputs) {
		t.Errorf("%d agent directories, %d named here", seen, len(toolOutputs))
	}
}

// relay is the line nb-hook sends for a recorded payload as install's
// settings line hands it over (--agent, and the event by name for an agent
// whose payload does not name it), or nil when it sends none.
func relay(t *testing.T, d *agent.Dialect, path string, payload []byte) []byte {
	t.Helper()
	var args []string
	if d.Settings != nil && d.Settings.Positional {
		base := strings.TrimSuffix(filepath.Base(path), ".json")
		args = []string{base[strings.Index(base, "-")+1:]}
	}
	ev := agent.Parse(agent.Input{Agent: string(d.Agent), Payload: payload, Args: args})
	if (&relayCLI{}).notShown(ev) != "" {
		return nil
	}
	tag := ""
	if ValidAgent(string(d.Agent)) {
		tag = string(d.Agent)
	}
	line, _, ok := Translate(payload, Input{Agent: tag, Parsed: &ev})
	if !ok {
		t.Fatalf("%s: not relayed", path)
	}
	return line
}

// outputs are the strings at paths in the payload ("#": every element of
// an array), as JSON, the first 60 bytes of each: enough to be found in a
// line that carried it, cut at the field cap or not. A string the payload
// also has elsewhere (a file's path, the content a tool wrote, which tools
// echo in their result) is the tool's input, not its output.
func outputs(t *testing.T, payload []byte, paths []string) []string {
	var rest map[string]any
	if err := json.Unmarshal(payload, &rest); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		dropPath(rest, strings.Split(p, "."))
	}
	elsewhere := encode(rest) // as the line is: no HTML escaping
	var out []string
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.IsObject() || v.IsArray():
			v.ForEach(func(_, e gjson.Result) bool { walk(e); return true })
		case v.Type == gjson.String && len(v.Str) >= 8:
			b := encode(v.Str)
			if !strings.Contains(string(elsewhere), string(b)) {
				out = append(out, string(b[:min(len(b), 60)]))
			}
		}
	}
	for _, p := range paths {
		walk(gjson.GetBytes(payload, p))
	}
	return out
}

// A failed tool's error goes as its first line: Claude Code puts the
// command's stderr below "Exit code 3" (recorded: claude-2.1.328/tool-errors).
func TestToolErrorFirstLine(t *testing.T) {
	b, err := os.ReadFile("../../testdata/agents/claude-2.1.328/tool-errors/04-PostToolUseFailure.json")
	if err != nil {
		t.Fatal(err)
	}
	ev := agent.Parse(agent.Input{Payload: b})
	out := translate(t, json.RawMessage(b), Input{Parsed: &ev})
	if out["error"] != "Exit code 3" || out["hook_event_name"] != "PostToolUseFailure" {
		t.Errorf("error %q, event %v", out["error"], out["hook_event_name"])
	}
	// A turn's error is not a tool's: kept whole.
	turn := []byte(`{"hook_event_name":"StopFailure","session_id":"s","error":"rate_limit\nretry later"}`)
	ev = agent.Parse(agent.Input{Payload: turn})
	if out := translate(t, json.RawMessage(turn), Input{Parsed: &ev}); out["error"] != "rate_limit\nretry later" {
		t.Errorf("a turn's error: %q", out["error"])
	}
}
