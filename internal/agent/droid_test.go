package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// Factory Droid's cases join the shared tables (TestParse,
// TestEveryKindCovered, TestRecorded): its payloads carry the common
// fields and no time.
func init() {
	parseCases = append(parseCases, droidParseCases...)
	recordedCases = append(recordedCases, droidRecordedCases...)
}

func droidPayload(event, extra string) string {
	return `{"session_id":"` + sid + `","transcript_path":"/home/u/.factory/sessions/-home-u-app/` + sid + `.jsonl",` +
		`"cwd":"/home/u/app","permission_mode":"auto-low","hook_event_name":"` + event + `"` + extra + `}`
}

var droidBase = Event{Agent: Droid, Session: sid, Cwd: "/home/u/app",
	Transcript: "/home/u/.factory/sessions/-home-u-app/" + sid + ".jsonl", Time: now}

// Written from the recorded payloads' shape (testdata/agents/droid-0.225.1);
// SubagentStop and PreCompact from Droid's hook reference, which 0.225's
// exec and a short TUI session never fired.
var droidParseCases = []parseCase{
	{"droid/SessionStart", "droid", nil, droidPayload("SessionStart", `,"source":"startup","CLAUDE_ENV_FILE":"/home/u/.factory/temp/env/droid-env.sh"`),
		with(droidBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionStart, "SessionStart", "startup" })},
	{"droid/UserPromptSubmit", "droid", nil, droidPayload("UserPromptSubmit", `,"message_id":"m1","prompt":"fix it","has_images":false`),
		with(droidBase, func(e *Event) { e.Kind, e.Name, e.Prompt = Prompt, "UserPromptSubmit", "fix it" })},
	{"droid/PreToolUse", "", nil, droidPayload("PreToolUse", `,"tool_name":"Execute","tool_input":{"command":"ls","riskLevel":"low","summary":"List the files here"}`),
		with(droidBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.AgentTool = ToolStart, "PreToolUse", "Bash", "Execute"
			e.ToolInput = []byte(`{"command":"ls","riskLevel":"low","summary":"List the files here","description":"List the files here"}`)
		})},
	{"droid/PostToolUse", "droid", nil, droidPayload("PostToolUse", `,"tool_name":"Read","tool_input":{"file_path":"/a"},"tool_response":"x"`),
		with(droidBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK = ToolEnd, "PostToolUse", "Read", true
			e.ToolInput = []byte(`{"file_path":"/a"}`)
		})},
	{"droid/Notification", "droid", nil, droidPayload("Notification", `,"message":"Factory CLI needs permission to execute 1 tool(s)","notification_type":"permission_prompt"`),
		with(droidBase, func(e *Event) {
			e.Kind, e.Name, e.Reason = Permission, "Notification", "permission_prompt"
			e.Message = "Factory CLI needs permission to execute 1 tool(s)"
		})},
	{"droid/Notification idle", "droid", nil, droidPayload("Notification", `,"message":"Droid is waiting","notification_type":"idle_prompt"`),
		with(droidBase, func(e *Event) {
			e.Kind, e.Name, e.Reason, e.Message = Attention, "Notification", "idle_prompt", "Droid is waiting"
		})},
	{"droid/SubagentStop", "droid", nil, droidPayload("SubagentStop", `,"stop_hook_active":false`),
		with(droidBase, func(e *Event) { e.Kind, e.Name = SubagentStop, "SubagentStop" })},
	{"droid/Stop", "", nil, droidPayload("Stop", `,"message_id":"m2","stop_hook_active":false,"tool_execution_count":0,"elapsed_time":98`),
		with(droidBase, func(e *Event) { e.Kind, e.Name = TurnEnd, "Stop" })},
	{"droid/PreCompact", "droid", nil, droidPayload("PreCompact", `,"trigger":"auto"`),
		with(droidBase, func(e *Event) { e.Kind, e.Name, e.Reason = Compact, "PreCompact", "auto" })},
	{"droid/SessionEnd", "", nil, droidPayload("SessionEnd", `,"message_id":"m2","reason":"other","session_duration_ms":319.7,"message_count":9`),
		with(droidBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionEnd, "SessionEnd", "other" })},
}

// Every recorded payload is Droid's without --agent, and in Claude's
// words.
var droidRecordedCases = []recordedCase{
	{"droid-0.225.1/01-SessionStart.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Droid)
		is(t, "Kind", ev.Kind, SessionStart)
	}},
	{"droid-0.225.1/02-PreToolUse.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Droid)
		is(t, "Tool", ev.Tool, "Bash")
		is(t, "command", gjson.GetBytes(ev.ToolInput, "command").String(), "echo hookwire-step-one")
		is(t, "description", gjson.GetBytes(ev.ToolInput, "description").String(), "Print a hookwire marker")
	}},
	{"droid-0.225.1/04-PreToolUse.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Tool", ev.Tool, "Write")
		is(t, "file_path", gjson.GetBytes(ev.ToolInput, "file_path").String(), "/home/user/proj/notes.txt")
	}},
	{"droid-0.225.1/07-PostToolUse.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, ToolEnd)
		is(t, "Tool", ev.Tool, "Read")
		is(t, "OK", ev.OK, true)
	}},
	{"droid-0.225.1/09-SessionEnd.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Droid)
		is(t, "Kind", ev.Kind, SessionEnd)
	}},
	{"droid-0.225.1/tui/02-UserPromptSubmit.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Droid)
		is(t, "Kind", ev.Kind, Prompt)
		is(t, "Prompt", ev.Prompt, "Run the three hookwire steps.")
	}},
	// The TUI asks a person to approve the command.
	{"droid-0.225.1/tui/04-Notification.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Droid)
		is(t, "Kind", ev.Kind, Permission)
	}},
}

// Stop carries no answer: the record it names does, or says the turn
// failed or was cut short (each recorded Stop read against the transcript
// its session wrote, with --agent droid as install writes it: the copy's
// path no longer says .factory).
func TestDroidRecordedTurnEnds(t *testing.T) {
	const answer = "All three steps are done: I ran a command, wrote notes.txt and read it back."
	for _, tc := range []struct {
		dir           string
		kind          Kind
		message, fail string
	}{
		{"", TurnEnd, answer, ""},
		{"tool-errors", TurnEnd, "Both steps failed as planned.", ""},
		{"tui", TurnEnd, answer, ""},
		{"api-error", Error, "", "BYOK Error: Requested model was not found on the API provider\n\nIf this persists, verify your custom model configuration in settings."},
		{"tui-refusal", Interrupted, "", ""},
		{"tui-interrupt", Interrupted, "", ""},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			stops, _ := filepath.Glob(filepath.Join(recorded, "droid-0.225.1", tc.dir, "*-Stop.json"))
			if len(stops) != 1 {
				t.Fatalf("%d Stop payloads", len(stops))
			}
			b, err := os.ReadFile(stops[0])
			if err != nil {
				t.Fatal(err)
			}
			path, _ := filepath.Abs(filepath.Join("../../testdata/transcripts/droid-0.225.1", tc.dir, "session.jsonl"))
			b = bytes.Replace(b, []byte(gjson.GetBytes(b, "transcript_path").Raw), []byte(strconv.Quote(path)), 1)
			ev := Parse(Input{Agent: "droid", Payload: b, Transcripts: true, Now: func() time.Time { return now }})
			is(t, "Agent", ev.Agent, Droid)
			is(t, "Kind", ev.Kind, tc.kind)
			is(t, "Message", ev.Message, tc.message)
			is(t, "Error", ev.Error, tc.fail)
			// A surface that shows no answers (Transcripts unset) still gets
			// how the turn ended (Outcome: pulse-claude shows the error).
			ev = Parse(Input{Agent: "droid", Payload: b, Now: func() time.Time { return now }})
			is(t, "Kind without answers", ev.Kind, tc.kind)
			is(t, "Error without answers", ev.Error, tc.fail)
			// Without the transcript, a plain turn end with nothing to show.
			b = bytes.Replace(b, []byte(strconv.Quote(path)), []byte(strconv.Quote(path+".gone")), 1)
			ev = Parse(Input{Agent: "droid", Payload: b, Transcripts: true, Now: func() time.Time { return now }})
			is(t, "Kind without the transcript", ev.Kind, TurnEnd)
			is(t, "Message without the transcript", ev.Message, "")
		})
	}
}

// Droid reads Claude Code's PreToolUse answer (recorded: a deny refuses
// each tool, testdata/agents/droid-0.225.1/pretooluse-deny; an allow ran a
// command --auto low refuses) and nothing else; it has no
// PermissionRequest. A SessionStart hook's plain stdout would reach the
// model: nothing is printed without an answer.
func TestDroidReply(t *testing.T) {
	for _, tc := range []struct {
		event string
		d     Decision
		want  string
	}{
		{"PreToolUse", Allow, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`},
		{"PreToolUse", Always, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`},
		{"PreToolUse", Deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied from Coucou"}}`},
		{"PreToolUse", Ask, ""},
		{"PreToolUse", None, ""},
		{"SessionStart", None, ""},
		{"Notification", Allow, ""},
		{"Stop", None, ""},
	} {
		if got := droid.Reply(tc.event, Reply{Decision: tc.d, By: "Coucou"}); got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.event, tc.d, got, tc.want)
		}
	}
	if got := droid.Reply("PreToolUse", Reply{Decision: Allow, UpdatedInput: []byte(`{"a":1}`)}); got != "" {
		t.Errorf("a changed input, which Droid does not take: %s", got)
	}
}
