package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// Qwen Code's payloads as its schema has them (the events no recording
// reached: subagents, compaction, StopFailure), one case per kind, in the
// table TestEveryKindCovered reads; the recorded ones are below.

const qwenSID = "ce1d088f-88ff-4ba1-a6e2-3eb32d2de746"

func qwenPayload(event, extra string) string {
	return `{"session_id":"` + qwenSID + `","transcript_path":"/home/u/.qwen/projects/-home-u-app/chats/` + qwenSID + `.jsonl",` +
		`"cwd":"/home/u/app","hook_event_name":"` + event + `","timestamp":"2026-11-30T11:59:58.250Z","permission_mode":"yolo"` + extra + `}`
}

var qwenBase = Event{Agent: "qwen", Session: qwenSID, Cwd: "/home/u/app",
	Transcript: "/home/u/.qwen/projects/-home-u-app/chats/" + qwenSID + ".jsonl",
	Time:       time.Date(2026, 11, 30, 11, 59, 58, 250e6, time.UTC)}

func init() {
	q := func(name, extra string, f func(*Event)) parseCase {
		return parseCase{"qwen/" + name, "", nil, qwenPayload(name, extra), with(qwenBase, func(e *Event) { e.Name = name; f(e) })}
	}
	parseCases = append(parseCases,
		q("SessionStart", `,"source":"startup","model":"qwen3-coder-plus"`, func(e *Event) {
			e.Kind, e.Reason, e.Model = SessionStart, "startup", "qwen3-coder-plus"
		}),
		q("InstructionsLoaded", `,"file_path":"/home/u/.qwen/output-language.md","load_reason":"session_start"`, func(e *Event) {}),
		q("UserPromptSubmit", `,"prompt":"Fix the test"`, func(e *Event) { e.Kind, e.Prompt = Prompt, "Fix the test" }),
		// Before each model call that follows a tool.
		q("UserPromptSubmit", `,"prompt":""`, func(e *Event) {}),
		q("PreToolUse", `,"tool_name":"grep_search","tool_input":{"pattern":"TODO"},"tool_use_id":"toolu_1_x","tool_call_id":"call_1"`,
			func(e *Event) {
				e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = ToolStart, Grep, "grep_search", "call_1", json.RawMessage(`{"pattern":"TODO"}`)
			}),
		// An older read_file's argument gets the canonical name beside it.
		q("PermissionRequest", `,"tool_name":"read_file","tool_input":{"absolute_path":"/a"}`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolInput = Permission, Read, "read_file", json.RawMessage(`{"absolute_path":"/a","file_path":"/a"}`)
		}),
		q("PermissionDenied", `,"tool_name":"run_shell_command"`, func(e *Event) { e.Tool, e.AgentTool = Bash, "run_shell_command" }),
		q("PostToolUse", `,"tool_name":"edit","tool_use_id":"toolu_2_y","tool_call_id":"call_2"`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.OK = ToolEnd, Edit, "edit", "call_2", true
		}),
		q("PostToolUseFailure", `,"tool_name":"web_fetch","tool_call_id":"call_3","error":"timeout","is_interrupt":false`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.Error = ToolEnd, WebFetch, "web_fetch", "call_3", "timeout"
		}),
		q("PostToolBatch", `,"tool_calls":[]`, func(e *Event) {}),
		q("MessageDisplay", `,"displayed_text":"Hi","is_final":true`, func(e *Event) {}),
		q("Notification", `,"message":"Successfully authenticated with openai","notification_type":"auth_success"`, func(e *Event) {
			e.Message, e.Reason = "Successfully authenticated with openai", "auth_success"
		}),
		q("Notification", `,"message":"Qwen Code needs your permission to use run_shell_command","notification_type":"permission_prompt"`, func(e *Event) {
			// The tool only in words, after PermissionRequest gave it whole.
			e.Kind, e.Message, e.Reason = Permission, "Qwen Code needs your permission to use run_shell_command", "permission_prompt"
			e.Tool, e.AgentTool = Bash, "run_shell_command"
		}),
		q("Notification", `,"message":"Check this","notification_type":"elicitation_dialog"`, func(e *Event) {
			e.Kind, e.Message, e.Reason = Attention, "Check this", "elicitation_dialog"
		}),
		q("SubagentStart", `,"agent_id":"a1","agent_type":"Explore"`, func(e *Event) { e.Kind, e.Subagent = SubagentStart, "a1" }),
		q("SubagentStop", `,"agent_id":"a1","agent_type":"Explore"`, func(e *Event) { e.Kind, e.Subagent = SubagentStop, "a1" }),
		q("TodoCreated", ``, func(e *Event) {}),
		q("TodoCompleted", ``, func(e *Event) {}),
		q("Stop", `,"stop_hook_active":false,"last_assistant_message":"Done."`, func(e *Event) { e.Kind, e.Message = TurnEnd, "Done." }),
		q("StopFailure", `,"error":"rate_limit","error_details":"429 Too Many Requests"`, func(e *Event) {
			e.Kind, e.ErrorType, e.Error = Error, "rate_limit", "429 Too Many Requests"
		}),
		q("PreCompact", `,"trigger":"manual"`, func(e *Event) { e.Kind, e.Reason = Compact, "manual" }),
		q("PostCompact", `,"trigger":"manual"`, func(e *Event) { e.Reason = "manual" }),
		q("SessionEnd", `,"reason":"prompt_input_exit"`, func(e *Event) { e.Kind, e.Reason = SessionEnd, "prompt_input_exit" }),
		q("SessionDelete", ``, func(e *Event) {}),
	)
}

// Every payload Qwen Code 0.24.4 sent (testdata/agents/qwen-0.24.4) is
// Qwen's, detected without --agent (its ISO timestamp would pass for Gemini
// CLI's), and none of its quirks becomes something a surface shows: the
// empty prompt before each model call that follows a tool, the
// auth_success and idle_prompt notifications are nothing.
func TestQwenRecorded(t *testing.T) {
	files, _ := filepath.Glob(recorded + "qwen-0.24.4/*.json")
	more, _ := filepath.Glob(recorded + "qwen-0.24.4/*/*.json")
	files = append(files, more...)
	if len(files) < 80 {
		t.Fatalf("%d recorded payloads: the recordings are missing", len(files))
	}
	kinds := map[string]Kind{
		"SessionStart": SessionStart, "InstructionsLoaded": Unknown, "PreToolUse": ToolStart,
		"PermissionRequest": Permission, "PostToolUse": ToolEnd, "PostToolUseFailure": ToolEnd,
		"PostToolBatch": Unknown, "MessageDisplay": Unknown, "Stop": TurnEnd, "SessionEnd": SessionEnd,
		"SubagentStart": SubagentStart, "SubagentStop": SubagentStop,
	}
	prompts, turns := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(f, recorded)
		for _, flag := range []string{"", "qwen"} {
			ev := Parse(Input{Agent: flag, Payload: b})
			name := gjson.GetBytes(b, "hook_event_name").Str
			if ev.Agent != "qwen" || ev.Name != name {
				t.Errorf("%s (--agent %q): agent %q, event %q", rel, flag, ev.Agent, ev.Name)
				continue
			}
			want, ok := kinds[name]
			switch name {
			case "UserPromptSubmit":
				want, ok = Prompt, true
				if gjson.GetBytes(b, "prompt").Str == "" {
					want = Unknown
				}
			case "Notification":
				want, ok = Unknown, true
				if ev.Reason == "permission_prompt" {
					want = Permission
				} else if ev.Reason != "auth_success" && ev.Reason != "idle_prompt" {
					t.Errorf("%s: a notification not recorded before: %s", rel, ev.Reason)
				}
			}
			if !ok {
				t.Errorf("%s: event %s has no expectation", rel, name)
			} else if ev.Kind != want {
				t.Errorf("%s: kind %q, want %q", rel, ev.Kind, want)
			}
			if flag == "" {
				if ev.Kind == Prompt {
					prompts++
				}
				if ev.Kind == TurnEnd {
					turns++
				}
			}
			if ev.Kind == ToolStart || ev.Kind == ToolEnd {
				if !strings.HasPrefix(ev.ToolUseID, "call_") {
					t.Errorf("%s: tool use id %q, not the model's", rel, ev.ToolUseID)
				}
				switch ev.Tool {
				case "Bash", "Read", "Write", "Edit", "Grep", "Glob", "Task":
				default:
					t.Errorf("%s: tool %q is not in the canonical vocabulary", rel, ev.Tool)
				}
			}
		}
	}
	// One prompt and one answer a session (api-error and permission-prompt
	// end before their answer; subagent's background subagent brings a
	// second turn, which no prompt opens).
	if prompts != 9 || turns != 8 {
		t.Errorf("%d prompts, %d turn ends; want 9 and 8", prompts, turns)
	}
}

// The recorded payloads' fields, as the surfaces read them.
func TestQwenRecordedFields(t *testing.T) {
	for _, tc := range []recordedCase{
		{"qwen-0.24.4/07-PreToolUse.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, "Bash")
			is(t, "command", gjson.GetBytes(ev.ToolInput, "command").Str, "echo hookwire-step-one")
			is(t, "ToolUseID", ev.ToolUseID, "call_000000000000000000000001")
		}},
		{"qwen-0.24.4/13-PostToolUse.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, "Write")
			is(t, "OK", ev.OK, true)
			is(t, "file_path", gjson.GetBytes(ev.ToolInput, "file_path").Str, "/home/user/proj/notes.txt")
		}},
		{"qwen-0.24.4/21-Stop.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "Message", ev.Message, "All three steps are done: I ran a command, wrote notes.txt and read it back.")
		}},
		{"qwen-0.24.4/tool-errors/06-PostToolUseFailure.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "OK", ev.OK, false)
			is(t, "Tool", ev.Tool, "Bash")
			if !strings.Contains(ev.Error, "Exit Code: 3") {
				t.Errorf("Error %q", ev.Error)
			}
		}},
		{"qwen-0.24.4/tool-errors/10-PostToolUseFailure.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "OK", ev.OK, false)
			is(t, "Tool", ev.Tool, "Read")
			is(t, "Error", ev.Error, "File not found: /home/user/proj/missing.txt")
		}},
		{"qwen-0.24.4/permission-prompt/04-PermissionRequest.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "Kind", ev.Kind, Permission)
			is(t, "Tool", ev.Tool, "Bash")
			is(t, "command", gjson.GetBytes(ev.ToolInput, "command").Str, "touch marker")
		}},
		{"qwen-0.24.4/subagent/07-PreToolUse.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, "Task")
			is(t, "description", gjson.GetBytes(ev.ToolInput, "description").Str, "Echo a marker")
		}},
		{"qwen-0.24.4/subagent/08-SubagentStart.json", "", nil, func(t *testing.T, ev Event) {
			is(t, "Agent", ev.Agent, Agent("qwen"))
			is(t, "Kind", ev.Kind, SubagentStart)
		}},
		{"qwen-0.24.4/tools/09-PreToolUse.json", "qwen", nil, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, "Edit")
			is(t, "old_string", gjson.GetBytes(ev.ToolInput, "old_string").Str, "live")
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(recorded + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, Parse(Input{Agent: tc.agent, Payload: b}))
		})
	}
}

// What a hook prints back: Claude Code's PermissionRequest decision, which
// Qwen Code reads (hookSpecificOutput.decision.behavior); nothing after the
// other events.
func TestQwenReply(t *testing.T) {
	if got := qwen.Reply("PermissionRequest", Reply{Decision: Allow}); got != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` {
		t.Errorf("allow: %s", got)
	}
	if got := qwen.Reply("PermissionRequest", Reply{Decision: Deny, By: "Coucou"}); gjson.Get(got, "hookSpecificOutput.decision.behavior").Str != "deny" {
		t.Errorf("deny: %s", got)
	}
	for _, name := range []string{"PreToolUse", "Stop", "Notification"} {
		if got := qwen.Reply(name, Reply{}); got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// The process that runs a Qwen session is the one its hooks are told of.
func TestQwenOwns(t *testing.T) {
	env := map[string]string{"QWEN_CODE_SESSION_ID": qwenSID, "QWEN_CODE_LAUNCHER_PID": "17007"}
	getenv := func(k string) string { return env[k] }
	if !qwen.Owns(17007, qwenSID, getenv) {
		t.Error("the launcher does not own its session")
	}
	if qwen.Owns(17054, qwenSID, getenv) || qwen.Owns(17007, "another", getenv) || qwen.Owns(17007, "", func(string) string { return "" }) {
		t.Error("another process, another session, or no word from Qwen owns it")
	}
}
