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

// Payloads the real agents sent (testdata/agents, see its README), each as
// the settings line install writes hands it over: Copilot's events by
// their positional name, the others detected from the payload alone.

const recorded = "../../testdata/agents/"

// recording reads the files of one recording (dir under recorded), for the
// parse cases built at init: a missing file is the test's own bug.
func recording(dir string) func(file string) string {
	return func(file string) string {
		b, err := os.ReadFile(recorded + dir + file)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
}

type recordedCase struct {
	file  string
	agent string // --agent, as install writes it; "" to test detection
	args  []string
	check func(t *testing.T, ev Event)
}

func is(t *testing.T, what string, got, want any) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

var recordedCases = []recordedCase{
	// Defect 7: Codex's SessionStart and SessionEnd have no turn_id.
	{"codex-0.169.0/01-SessionStart.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Codex)
		is(t, "Kind", ev.Kind, SessionStart)
		is(t, "Model", ev.Model, "gpt-5.5")
	}},
	{"codex-0.169.0/11-SessionEnd.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Codex)
		is(t, "Kind", ev.Kind, SessionEnd)
	}},
	// Defect 4: after an interrupt Codex sends Interrupt, and nothing else.
	{"codex-0.169.0/interrupt/04-Interrupt.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Codex)
		is(t, "Kind", ev.Kind, Interrupted)
	}},
	// Defect 8: PreCompress (auto) before every model request.
	{"gemini-0.61.0/03-PreCompress.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, Unknown)
	}},
	{"gemini-0.61.0/23-PreCompress.json", "gemini", nil, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, Unknown)
		is(t, "ArgKind", ArgKind(ev, "PreCompress"), Unknown)
	}},
	// Defect 9: AfterTool's error is an object.
	{"gemini-0.61.0/tool-failures/06-AfterTool.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "OK", ev.OK, false)
		is(t, "Error", ev.Error, "File not found: /home/user/proj/missing.txt")
	}},
	// Defect 12: a failed shell command says so only in llmContent.
	{"gemini-0.61.0/tool-failures/04-AfterTool.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "OK", ev.OK, false)
		is(t, "Error", ev.Error, "Exit Code: 2")
	}},
	{"gemini-0.61.0/09-AfterTool.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "OK", ev.OK, true)
		is(t, "Error", ev.Error, "")
	}},
	// Defect 10: the tool of a ToolPermission notification is in details.
	{"gemini-0.61.0/ask-notification/08-Notification.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, Permission)
		is(t, "Tool", ev.Tool, Bash)
		is(t, "AgentTool", ev.AgentTool, "run_shell_command")
		is(t, "ToolInput", string(ev.ToolInput), `{"command":"touch /home/user/proj/ask-marker"}`)
	}},
	// Defect 18: Copilot's tools in Claude's names and arguments; toolInput
	// on permissionRequest.
	{"copilot-1.0.102/04-preToolUse.json", "copilot", []string{"preToolUse"}, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, ToolStart)
		is(t, "Tool", ev.Tool, "Bash")
		is(t, "command", gjson.GetBytes(ev.ToolInput, "command").String(), "echo hookwire-step-one")
	}},
	{"copilot-1.0.102/07-preToolUse.json", "copilot", []string{"preToolUse"}, func(t *testing.T, ev Event) {
		is(t, "Tool", ev.Tool, "Write")
		is(t, "file_path", gjson.GetBytes(ev.ToolInput, "file_path").String(), "/home/user/proj/notes.txt")
		is(t, "content", gjson.GetBytes(ev.ToolInput, "content").String(), "hookwire live notes\n")
	}},
	{"copilot-1.0.102/10-preToolUse.json", "copilot", []string{"preToolUse"}, func(t *testing.T, ev Event) {
		is(t, "Tool", ev.Tool, "Read")
		is(t, "file_path", gjson.GetBytes(ev.ToolInput, "file_path").String(), "/home/user/proj/notes.txt")
	}},
	// Defect 16: permissionRequest fires for every tool that is not
	// read-only, under --allow-all-tools too: no person is asked.
	{"copilot-1.0.102/05-permissionRequest.json", "copilot", []string{"permissionRequest"}, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, Review)
		is(t, "ArgKind", ArgKind(ev, "permissionRequest"), Unknown)
		is(t, "Tool", ev.Tool, "Bash")
		is(t, "ToolInput", string(ev.ToolInput), `{"command":"echo hookwire-step-one"}`)
	}},
	{"copilot-1.0.102/08-permissionRequest.json", "copilot", []string{"permissionRequest"}, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, Review)
		is(t, "Tool", ev.Tool, "Edit")
		is(t, "file_path", gjson.GetBytes(ev.ToolInput, "file_path").String(), "/home/user/proj/notes.txt")
	}},
	{"copilot-1.0.102/permission-prompt/06-notification.json", "copilot", []string{"notification"}, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, Permission)
		is(t, "Message", ev.Message, "Run command: touch /home/user/proj/perm-marker")
	}},
	// A failed shell command is a "success" with its exit code in the text.
	{"copilot-1.0.102/tool-errors/06-postToolUse.json", "copilot", []string{"postToolUse"}, func(t *testing.T, ev Event) {
		is(t, "Kind", ev.Kind, ToolEnd)
		is(t, "OK", ev.OK, false)
		is(t, "Error", ev.Error, "exit code 3")
	}},
	{"copilot-1.0.102/06-postToolUse.json", "copilot", []string{"postToolUse"}, func(t *testing.T, ev Event) {
		is(t, "OK", ev.OK, true)
		is(t, "Error", ev.Error, "")
	}},
	{"copilot-1.0.102/tool-errors/08-postToolUseFailure.json", "copilot", []string{"postToolUseFailure"}, func(t *testing.T, ev Event) {
		is(t, "OK", ev.OK, false)
		is(t, "Error", ev.Error, "Path does not exist")
		is(t, "Tool", ev.Tool, "Read")
	}},
	{"copilot-1.0.102/permission-prompt/06-notification.json", "", nil, func(t *testing.T, ev Event) {
		is(t, "Agent", ev.Agent, Copilot)
		is(t, "Kind", ev.Kind, Permission)
	}},
}

func TestRecorded(t *testing.T) {
	for _, tc := range recordedCases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(recorded + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, Parse(Input{Agent: tc.agent, Payload: b, Args: tc.args, Now: func() time.Time { return now }}))
		})
	}
}

// Defect 11 and 18: the final answer, read from the transcript that the
// recorded session wrote (its path in the payload pointed at the copy).
func TestRecordedAnswers(t *testing.T) {
	const want = "All three steps are done: I ran a command, wrote notes.txt and read it back."
	for _, tc := range []struct {
		file, agent, event, transcript, want string
	}{
		{"gemini-0.61.0/27-AfterAgent.json", "", "", "gemini-0.61.0/chats-session.jsonl", want},
		{"gemini-0.61.0/tool-failures/07-AfterAgent.json", "", "", "gemini-0.61.0/tool-failures/chats-session.jsonl", "Both failed."},
		{"copilot-1.0.102/12-agentStop.json", "copilot", "agentStop", "copilot-1.0.102/events.jsonl", want},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(recorded + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			path, _ := filepath.Abs("../../testdata/transcripts/" + tc.transcript)
			old := gjson.GetBytes(b, "transcript_path").Raw
			if old == "" {
				old = gjson.GetBytes(b, "transcriptPath").Raw
			}
			b = bytes.Replace(b, []byte(old), []byte(strconv.Quote(path)), 1)
			var args []string
			if tc.event != "" {
				args = []string{tc.event}
			}
			ev := Parse(Input{Agent: tc.agent, Payload: b, Args: args, Transcripts: true})
			is(t, "Kind", ev.Kind, TurnEnd)
			is(t, "Message", ev.Message, tc.want)
			// Without the transcript, what the payload says.
			ev = Parse(Input{Agent: tc.agent, Payload: b, Args: args})
			if ev.Message == tc.want {
				t.Errorf("the payload alone gave the final answer: the case proves nothing")
			}
		})
	}
}
