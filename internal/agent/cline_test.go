package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Cline CLI's payloads as its schema has them, one case per kind (the
// events no recording reached: resume, cancel, error, compaction,
// shutdown), in the table TestEveryKindCovered reads; the recorded ones are
// below. The event is the hook file's name, an argument.

const clineSID = "1796143172050_vnjkw"

func clinePayload(hook, extra string) string {
	return `{"clineVersion":"","timestamp":"2026-12-01T16:39:33.774Z","taskId":"conv_1","sessionContext":{"rootSessionId":"` + clineSID + `"},` +
		`"workspaceRoots":["/home/u/app"],"workspaceInfo":{"rootPath":"/home/u/app","hint":"app"},"userId":"unknown",` +
		`"agent_id":"agent_1","parent_agent_id":null,"hookName":"` + hook + `"` + extra + `}`
}

var clineBase = Event{Agent: "cline", Session: clineSID, Cwd: "/home/u/app",
	Time: time.Date(2026, 12, 1, 16, 39, 33, 774e6, time.UTC)}

func init() {
	c := func(name, hook, extra string, f func(*Event)) parseCase {
		return parseCase{"cline/" + name, "cline", []string{name}, clinePayload(hook, extra), with(clineBase, func(e *Event) { e.Name = name; f(e) })}
	}
	parseCases = append(parseCases,
		c("TaskStart", "agent_start", `,"taskStart":{"taskMetadata":{}}`, func(e *Event) { e.Kind = SessionStart }),
		c("TaskResume", "agent_resume", `,"taskResume":{"taskMetadata":{}}`, func(e *Event) { e.Kind = SessionStart }),
		// Cline's own reminder is no person's prompt, nor a turn.
		c("UserPromptSubmit", "prompt_submit", `,"userPromptSubmit":{"prompt":"[SYSTEM] This run is not complete until you call one of these terminal completion tools: submit_and_exit.","attachments":[]}`,
			func(e *Event) {}),
		c("UserPromptSubmit", "prompt_submit", `,"userPromptSubmit":{"prompt":"Fix the test","attachments":[]}`,
			func(e *Event) { e.Kind, e.Prompt = Prompt, "Fix the test" }),
		c("PreToolUse", "tool_call", `,"tool_call":{"id":"call_1","name":"search_codebase","input":{"queries":["TODO"]}},"preToolUse":{"toolName":"search_codebase","parameters":{"queries":"[\"TODO\"]"}}`,
			func(e *Event) {
				e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = ToolStart, Grep, "search_codebase", "call_1", json.RawMessage(`{"queries":["TODO"]}`)
			}),
		c("PostToolUse", "tool_result", `,"tool_result":{"id":"call_2","name":"run_commands","input":{"commands":["false"]},"output":[{"query":"false","result":"","success":false}],"error":"exit 1","durationMs":3},"postToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"false\"]"},"result":"[]","success":false,"executionTimeMs":3}`,
			func(e *Event) {
				e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.Error = ToolEnd, Bash, "run_commands", "call_2", "exit 1"
				e.ToolInput = json.RawMessage(`{"commands":["false"],"command":"false"}`)
			}),
		c("PreCompact", "pre_compact", ``, func(e *Event) { e.Kind = Compact }),
		c("TaskComplete", "agent_end", `,"turn":{"outputText":"Submission recorded (verified): Done.","status":"completed"},"taskComplete":{"taskMetadata":{}}`,
			func(e *Event) { e.Kind, e.Message = TurnEnd, "Done." }),
		c("TaskCancel", "agent_abort", `,"taskCancel":{"taskMetadata":{}}`, func(e *Event) { e.Kind = Interrupted }),
		c("TaskError", "agent_error", `,"error":{"message":"400 bad request"}`, func(e *Event) { e.Kind, e.Error = Error, "400 bad request" }),
		c("SessionShutdown", "session_shutdown", `,"reason":"exit"`, func(e *Event) { e.Kind, e.Reason = SessionEnd, "exit" }),
	)
}

// TestClineRecorded: every payload Cline CLI 3.0.65 sent, each parsed with
// the event its file was named after, as the script install writes hands
// it over: its kind, session, project, tool and answer.
func TestClineRecorded(t *testing.T) {
	files, _ := filepath.Glob(recorded + "cline-3.0.65/*.json")
	if len(files) != 11 {
		t.Fatalf("%d recorded payloads: the recordings are missing", len(files))
	}
	kinds := map[string]Kind{"TaskStart": SessionStart, "UserPromptSubmit": Unknown, "PreToolUse": ToolStart,
		"PostToolUse": ToolEnd, "TaskComplete": TurnEnd}
	var tools []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.SplitN(strings.TrimSuffix(filepath.Base(f), ".json"), "-", 2)[1]
		ev := Parse(Input{Agent: "cline", Payload: b, Args: []string{name}})
		if ev.Name != name || ev.Kind != kinds[name] {
			t.Errorf("%s: event %q kind %q, want %s %q", f, ev.Name, ev.Kind, name, kinds[name])
		}
		if ev.Session != clineSID || ev.Cwd != "/home/user/proj" || ev.Subagent != "" {
			t.Errorf("%s: session %q cwd %q subagent %q", f, ev.Session, ev.Cwd, ev.Subagent)
		}
		switch ev.Kind {
		case Unknown:
			if ev.Prompt != "" {
				t.Errorf("%s: prompt %q: Cline's reminder taken for the user's", f, ev.Prompt)
			}
		case ToolEnd:
			if !ev.OK || ev.ToolUseID == "" {
				t.Errorf("%s: ok %v id %q", f, ev.OK, ev.ToolUseID)
			}
			tools = append(tools, ev.Tool)
		case TurnEnd:
			if ev.Message != "All three steps are done: I ran a command, wrote notes.txt and read it back." {
				t.Errorf("%s: answer %q", f, ev.Message)
			}
		}
	}
	if got := strings.Join(tools, " "); got != "Bash Edit Read submit_and_exit" {
		t.Errorf("tools %s", got)
	}
}

func TestClineReply(t *testing.T) {
	if got := cline.Reply("PreToolUse", Reply{Decision: Deny, By: "Coucou"}); got != `{"cancel":true,"errorMessage":"Denied from Coucou"}` {
		t.Errorf("deny: %s", got)
	}
	for _, d := range []Decision{None, Allow, Ask} {
		if got := cline.Reply("PreToolUse", Reply{Decision: d}); got != "" {
			t.Errorf("%q: %s: an empty stdout lets the tool run", d, got)
		}
	}
}
