package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Kimi Code's payloads as its hook runner builds them (the events no
// recording reached), one case per kind, in the table TestEveryKindCovered
// reads; the recorded ones are below.

const kimiSID = "session_c04e79d4-4aae-4490-b61d-5b7a0378f0de"

func kimiPayload(event, extra string) string {
	return `{"hook_event_name":"` + event + `","session_id":"` + kimiSID + `","cwd":"/home/u/app","client_type":"kimi_code_cli"` + extra + `}`
}

var kimiBase = Event{Agent: "kimi", Session: kimiSID, Cwd: "/home/u/app", Time: now}

func init() {
	k := func(name, extra string, f func(*Event)) parseCase {
		return parseCase{"kimi/" + name, "", nil, kimiPayload(name, extra), with(kimiBase, func(e *Event) { e.Name = name; f(e) })}
	}
	parseCases = append(parseCases,
		// The model is the placeholder alias of the environment's model.
		k("SessionStart", `,"source":"startup","model":"__kimi_env_model__","profile":"agent"`, func(e *Event) {
			e.Kind, e.Reason = SessionStart, "startup"
		}),
		k("SessionStart", `,"source":"resume","model":"kimi-k2"`, func(e *Event) {
			e.Kind, e.Reason, e.Model = SessionStart, "resume", "kimi-k2"
		}),
		k("UserPromptSubmit", `,"prompt":[{"type":"text","text":"Fix the test"},{"type":"image_url","image_url":{}},{"type":"text","text":"and this"}],"is_steer":false`,
			func(e *Event) { e.Kind, e.Prompt = Prompt, "Fix the test\nand this" }),
		k("TurnStarted", `,"turn_id":0,"origin_kind":"user","prompt":"Fix the test"`, func(e *Event) { e.Prompt = "Fix the test" }),
		k("UserPromptQueued", `,"prompt_id":"msg_1","prompt":[],"queue_length":1`, func(e *Event) {}),
		k("PreToolUse", `,"tool_name":"Read","tool_input":{"path":"/a"},"tool_call_id":"call_1"`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = ToolStart, Read, "Read", "call_1", json.RawMessage(`{"path":"/a","file_path":"/a"}`)
		}),
		k("PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"touch x"},"tool_call_id":"call_2"`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.ToolInput = Permission, Bash, "Bash", "call_2", json.RawMessage(`{"command":"touch x"}`)
		}),
		k("PermissionResult", `,"tool_name":"Bash"`, func(e *Event) { e.Tool, e.AgentTool = Bash, "Bash" }),
		k("PostToolUse", `,"tool_name":"FetchURL","tool_input":{"url":"u"},"tool_call_id":"call_3","tool_output":"x"`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.OK, e.ToolInput = ToolEnd, WebFetch, "FetchURL", "call_3", true, json.RawMessage(`{"url":"u"}`)
		}),
		k("PostToolUseFailure", `,"tool_name":"Bash","tool_input":{},"tool_call_id":"call_4","error":{"code":"internal","message":"exit 3","retryable":false}`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.Error, e.ToolInput = ToolEnd, Bash, "Bash", "call_4", "exit 3", json.RawMessage(`{}`)
		}),
		k("TaskStarted", `,"task_id":"t1","kind":"bash"`, func(e *Event) {}),
		k("Notification", `,"sink":"context","notification_type":"task_done"`, func(e *Event) { e.Reason = "task_done" }),
		k("SubagentStart", `,"agent_name":"coder","prompt":"go"`, func(e *Event) { e.Kind, e.Subagent, e.Prompt = SubagentStart, "coder", "go" }),
		k("SubagentStop", `,"agent_name":"coder"`, func(e *Event) { e.Kind, e.Subagent = SubagentStop, "coder" }),
		k("Stop", `,"stop_hook_active":false`, func(e *Event) { e.Kind = TurnEnd }),
		k("StopFailure", `,"error_type":"APIStatusError","error_message":"429 Too Many Requests"`, func(e *Event) {
			e.Kind, e.ErrorType, e.Error = Error, "APIStatusError", "429 Too Many Requests"
		}),
		k("Interrupt", `,"turn_id":0,"reason":"cancelled"`, func(e *Event) { e.Kind, e.Reason = Interrupted, "cancelled" }),
		k("PreCompact", `,"trigger":"auto","token_count":9000`, func(e *Event) { e.Kind, e.Reason = Compact, "auto" }),
		k("PostCompact", `,"trigger":"auto"`, func(e *Event) { e.Reason = "auto" }),
		k("SessionHeartbeat", `,"uptime_ms":60000`, func(e *Event) {}),
		k("SessionEnd", `,"reason":"exit"`, func(e *Event) { e.Kind, e.Reason = SessionEnd, "exit" }),
	)
}

// Every payload Kimi Code 2.1.0 sent (testdata/agents/kimi-2.1.0) is Kimi's,
// detected without --agent, and each has the kind its name says: the
// TurnStarted after each prompt is nothing; the tool calls the model got
// wrong end (not OK) though they never started.
func TestKimiRecorded(t *testing.T) {
	files, _ := filepath.Glob(recorded + "kimi-2.1.0/*.json")
	more, _ := filepath.Glob(recorded + "kimi-2.1.0/*/*.json")
	files = append(files, more...)
	if len(files) < 18 {
		t.Fatalf("%d recorded payloads: the recordings are missing", len(files))
	}
	kinds := map[string]Kind{
		"SessionStart": SessionStart, "UserPromptSubmit": Prompt, "TurnStarted": Unknown, "PreToolUse": ToolStart,
		"PostToolUse": ToolEnd, "PostToolUseFailure": ToolEnd, "Stop": TurnEnd,
	}
	starts, ends, failed := 0, 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(f, recorded)
		for _, flag := range []string{"", "kimi"} {
			ev := Parse(Input{Agent: flag, Payload: b})
			name := gjson.GetBytes(b, "hook_event_name").Str
			if ev.Agent != "kimi" || ev.Name != name || ev.Session == "" || ev.Cwd != "/home/user/proj" {
				t.Errorf("%s (--agent %q): agent %q, event %q, session %q, cwd %q", rel, flag, ev.Agent, ev.Name, ev.Session, ev.Cwd)
				continue
			}
			if want, ok := kinds[name]; !ok || ev.Kind != want {
				t.Errorf("%s: kind %q, want %q (known: %v)", rel, ev.Kind, want, ok)
			}
			if ev.Model != "" {
				t.Errorf("%s: model %q, Kimi's placeholder alias", rel, ev.Model)
			}
			if flag != "" {
				continue
			}
			switch ev.Kind {
			case Prompt:
				is(t, "Prompt", ev.Prompt, "Run the three hookwire steps.")
			case ToolStart:
				starts++
			case ToolEnd:
				ends++
				if !ev.OK {
					failed++
				}
			}
			if ev.Kind == ToolStart || ev.Kind == ToolEnd {
				if !strings.HasPrefix(ev.ToolUseID, "call_") {
					t.Errorf("%s: tool use id %q", rel, ev.ToolUseID)
				}
				switch ev.Tool {
				case Bash, Read, Write:
				default:
					t.Errorf("%s: tool %q is not in the canonical vocabulary", rel, ev.Tool)
				}
			}
		}
	}
	// Three calls in the main session; in invalid-args one ran and two
	// failed before they started.
	if starts != 4 || ends != 6 || failed != 2 {
		t.Errorf("%d tool starts, %d ends, %d failed; want 4, 6, 2", starts, ends, failed)
	}
}

// The recorded payloads' fields, as the surfaces read them; the turn end's
// answer from the session's wire.jsonl, found from the session id.
func TestKimiRecordedFields(t *testing.T) {
	for _, tc := range []recordedCase{
		{"kimi-2.1.0/04-PreToolUse.json", "kimi", nil, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, "Bash")
			is(t, "command", gjson.GetBytes(ev.ToolInput, "command").Str, "echo hookwire-step-one")
			is(t, "ToolUseID", ev.ToolUseID, "call_000000000000000000000001")
		}},
		{"kimi-2.1.0/07-PostToolUse.json", "kimi", nil, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, "Write")
			is(t, "OK", ev.OK, true)
			is(t, "file_path", gjson.GetBytes(ev.ToolInput, "file_path").Str, "/home/user/proj/notes.txt")
		}},
		{"kimi-2.1.0/invalid-args/06-PostToolUseFailure.json", "kimi", nil, func(t *testing.T, ev Event) {
			is(t, "OK", ev.OK, false)
			is(t, "Tool", ev.Tool, "Write")
			is(t, "Error", ev.Error, `Invalid args for tool "Write": must have required property 'path'; must NOT have additional property 'file_path'`)
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

// Stop names no transcript and carries no answer: Parse finds the
// session's wire.jsonl under KIMI_CODE_HOME (else ~/.kimi-code) and reads
// the answer from it.
func TestKimiAnswer(t *testing.T) {
	wire, err := os.ReadFile(filepath.Join("..", "..", "testdata", "transcripts", "kimi-2.1.0", "wire.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	stop, err := os.ReadFile(recorded + "kimi-2.1.0/10-Stop.json")
	if err != nil {
		t.Fatal(err)
	}
	sid := gjson.GetBytes(stop, "session_id").Str
	home := t.TempDir()
	dir := filepath.Join(home, ".kimi-code", "sessions", "wd_proj_cd190fec3e6d", sid, "agents", "main")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "wire.jsonl"), wire, 0o600)
	for name, env := range map[string]map[string]string{
		"HOME":           {"HOME": home, "USERPROFILE": home},
		"KIMI_CODE_HOME": {"HOME": "/nowhere", "USERPROFILE": "/nowhere", "KIMI_CODE_HOME": filepath.Join(home, ".kimi-code")},
	} {
		getenv := func(k string) string { return env[k] }
		ev := Parse(Input{Agent: "kimi", Payload: stop, Getenv: getenv, Transcripts: true})
		is(t, name+": Message", ev.Message, "All three steps are done: I ran a command, wrote notes.txt and read it back.")
		is(t, name+": Transcript", ev.Transcript, filepath.Join(dir, "wire.jsonl"))
	}
	// Without Transcripts (a test's Parse) nothing is read.
	if ev := Parse(Input{Agent: "kimi", Payload: stop, Getenv: func(string) string { return home }}); ev.Message != "" || ev.Transcript != "" {
		t.Errorf("read the wire without Transcripts: %+v", ev)
	}
	// A session id that is a path finds nothing.
	if got := kimiWire(Event{Session: "../x"}, func(string) string { return home }); got != "" {
		t.Errorf("kimiWire(../x) = %q", got)
	}
}

// What a hook prints back: PreToolUse's deny, which Kimi Code reads (exit 2
// would too); nothing else, since nothing approves a tool.
func TestKimiReply(t *testing.T) {
	got := kimi.Reply("PreToolUse", Reply{Decision: Deny, By: "Coucou"})
	if gjson.Get(got, "hookSpecificOutput.permissionDecision").Str != "deny" || gjson.Get(got, "hookSpecificOutput.permissionDecisionReason").Str != "Denied from Coucou" {
		t.Errorf("deny: %s", got)
	}
	for _, c := range []struct {
		name string
		d    Decision
	}{{"PreToolUse", Allow}, {"PreToolUse", None}, {"PermissionRequest", Deny}, {"Stop", None}} {
		if got := kimi.Reply(c.name, Reply{Decision: c.d}); got != "" {
			t.Errorf("%s %q: %q", c.name, c.d, got)
		}
	}
	if kimi.Approves != nil {
		t.Error("Kimi's PermissionRequest is fired and forgotten: no answer goes back")
	}
}
