package agent

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// Agents that run Claude Code's hooks (Grok Build, Devin CLI, Qoder CLI):
// their payloads, written from their source or documentation
// (testdata/agents/*-from-*), as hookwire's Claude Code hook line hands
// them over (no --agent), in the environment each agent gives its hooks.

// envOf is a getenv of the given variables.
func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

var grokEnv = envOf("GROK_HOOK_EVENT", "pre_tool_use", "GROK_HOOK_NAME", "global/settings.json:0",
	"GROK_SESSION_ID", grokSID, "GROK_WORKSPACE_ROOT", "/home/user/proj", "CLAUDE_PROJECT_DIR", "/home/user/proj")

const grokSID = "019ae3f2-5c1d-7b44-9a0e-3d2f1c0b9a87"

func parseFile(t *testing.T, file, flag string, getenv func(string) string, args ...string) Event {
	t.Helper()
	b, err := os.ReadFile(recorded + file)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(Input{Agent: flag, Payload: b, Args: args, Getenv: getenv,
		Getwd: func() (string, error) { return "/home/user/proj", nil }, Now: func() time.Time { return now }})
}

func TestGrok(t *testing.T) {
	const dir = "grok-19d42e35-from-source/"
	for _, tc := range []struct {
		file string
		kind Kind
		f    func(t *testing.T, ev Event)
	}{
		{"01-session_start.json", SessionStart, func(t *testing.T, ev Event) {
			is(t, "Model", ev.Model, "grok-code-fast-1")
			is(t, "Reason", ev.Reason, "startup")
			is(t, "Time", ev.Time, time.Date(2026, 12, 5, 20, 0, 0, 120e6, time.UTC))
		}},
		{"02-user_prompt_submit.json", Prompt, func(t *testing.T, ev Event) {
			is(t, "Prompt", ev.Prompt, "Run the three hookwire steps.")
		}},
		{"03-pre_tool_use.json", ToolStart, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, Bash)
			is(t, "AgentTool", ev.AgentTool, "run_terminal_command")
			is(t, "ToolUseID", ev.ToolUseID, "call_01")
			is(t, "command", gjsonGet(ev.ToolInput, "command"), "echo step 1")
		}},
		{"04-post_tool_use.json", ToolEnd, func(t *testing.T, ev Event) {
			is(t, "OK", ev.OK, true)
			is(t, "Tool", ev.Tool, Bash)
			is(t, "ToolOutput", ev.Get("toolResult").Exists() && contains(ev.Agent, "toolResult"), true)
		}},
		{"05-pre_tool_use.json", ToolStart, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, Read)
			is(t, "file_path", gjsonGet(ev.ToolInput, "file_path"), "/home/user/proj/missing.txt")
		}},
		{"06-post_tool_use_failure.json", ToolEnd, func(t *testing.T, ev Event) {
			is(t, "OK", ev.OK, false)
			is(t, "Error", ev.Error, "File not found: /home/user/proj/missing.txt")
		}},
		{"07-notification.json", Permission, func(t *testing.T, ev Event) {
			is(t, "Reason", ev.Reason, "permission_prompt")
			is(t, "Message", ev.Message, "Grok wants to run: rm -rf build")
		}},
		// A subagent: its start in the parent's session, its events and
		// its stop in its own, which no payload links to the parent's:
		// nothing a surface could pair.
		{"08-subagent_start.json", Unknown, func(t *testing.T, ev Event) {
			is(t, "Subagent", ev.Subagent, "019ae3f2-7000-7000-8000-00000000beef")
		}},
		{"09-pre_tool_use.json", Unknown, nil},
		{"10-subagent_stop.json", Unknown, nil},
		{"11-pre_compact.json", Compact, func(t *testing.T, ev Event) { is(t, "Reason", ev.Reason, "manual") }},
		{"12-stop.json", TurnEnd, func(t *testing.T, ev Event) { is(t, "Message", ev.Message, "All three steps are done.") }},
		{"13-stop_failure.json", Error, func(t *testing.T, ev Event) {
			is(t, "ErrorType", ev.ErrorType, "rate_limit")
			is(t, "Error", ev.Error, "429 Too Many Requests: capacity exceeded")
		}},
		{"14-stop_cancelled.json", Interrupted, nil},
		{"15-stop_cancelled.json", Error, func(t *testing.T, ev Event) {
			is(t, "ErrorType", ev.ErrorType, "max_turns")
			is(t, "Error", ev.Error, "Stopped after 50 turns")
		}},
		{"16-notification.json", Attention, func(t *testing.T, ev Event) { is(t, "Reason", ev.Reason, "idle_prompt") }},
		{"17-session_end.json", SessionEnd, nil},
		// After session_end: the observe-only Stop of the session's end.
		{"18-stop.json", Unknown, nil},
	} {
		// Through hookwire's Claude Code hook (no --agent), Cursor's
		// (Grok runs ~/.cursor/hooks.json too) and its own.
		for _, flag := range []string{"", "cursor", "grok"} {
			t.Run(tc.file+"/"+flag, func(t *testing.T) {
				ev := parseFile(t, dir+tc.file, flag, grokEnv)
				is(t, "Agent", ev.Agent, Agent("grok"))
				is(t, "Kind", ev.Kind, tc.kind)
				wantSession := grokSID
				if strings.HasPrefix(tc.file, "09-") || strings.HasPrefix(tc.file, "10-") {
					wantSession = "019ae3f2-7000-7000-8000-00000000beef"
				}
				is(t, "Session", ev.Session, wantSession)
				is(t, "Cwd", ev.Cwd, "/home/user/proj")
				if tc.f != nil {
					tc.f(t, ev)
				}
			})
		}
	}
}

// Claude Code started from a Grok Build session inherits its variables:
// its own payload is still Claude Code's.
func TestGrokEnvIsNotGrok(t *testing.T) {
	ev := parseFile(t, "claude-2.1.328/04-PreToolUse.json", "", grokEnv)
	is(t, "Agent", ev.Agent, Claude)
}

func gjsonGet(raw json.RawMessage, path string) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	s, _ := m[path].(string)
	return s
}

// contains: the path is among where the agent's dialect keeps a tool's
// output, which Coucou drops.
func contains(a Agent, path string) bool {
	d, _ := For(a)
	for _, p := range d.ToolOutput() {
		if p == path {
			return true
		}
	}
	return false
}

var devinEnv = envOf("DEVIN_PROJECT_DIR", "/home/user/proj")

func TestDevin(t *testing.T) {
	const dir = "devin-from-docs/"
	for _, tc := range []struct {
		file, event string
		kind        Kind
		f           func(t *testing.T, ev Event)
	}{
		{"01-SessionStart.json", "SessionStart", SessionStart, func(t *testing.T, ev Event) { is(t, "Reason", ev.Reason, "startup") }},
		{"02-UserPromptSubmit.json", "UserPromptSubmit", Prompt, func(t *testing.T, ev Event) {
			is(t, "Prompt", ev.Prompt, "Run the three hookwire steps.")
		}},
		{"03-PreToolUse.json", "PreToolUse", ToolStart, func(t *testing.T, ev Event) {
			is(t, "Tool", ev.Tool, Bash)
			is(t, "AgentTool", ev.AgentTool, "exec")
		}},
		{"04-PermissionRequest.json", "PermissionRequest", Permission, func(t *testing.T, ev Event) { is(t, "Tool", ev.Tool, Bash) }},
		{"05-PostToolUse.json", "PostToolUse", ToolEnd, func(t *testing.T, ev Event) { is(t, "OK", ev.OK, true) }},
		{"06-PostToolUse.json", "PostToolUse", ToolEnd, func(t *testing.T, ev Event) {
			is(t, "OK", ev.OK, false)
			is(t, "Tool", ev.Tool, Read)
			is(t, "Error", ev.Error, "File not found: /home/user/proj/missing.txt")
		}},
		{"07-Stop.json", "Stop", TurnEnd, nil},
		{"08-SessionEnd.json", "SessionEnd", SessionEnd, func(t *testing.T, ev Event) { is(t, "Reason", ev.Reason, "exit") }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			// The line install --agent devin writes: the event named.
			ev := parseFile(t, "devin-from-docs/"+tc.file, "devin", devinEnv, tc.event)
			is(t, "Agent", ev.Agent, Agent("devin"))
			is(t, "Kind", ev.Kind, tc.kind)
			if !strings.HasPrefix(ev.Session, "devin.") {
				t.Errorf("Session = %q: no key of the process or the project", ev.Session)
			}
			if tc.f != nil {
				tc.f(t, ev)
			}
			// Claude Code's line, which names nothing: the payload's name
			// when it has one, as Claude Code's has.
			b, _ := os.ReadFile(recorded + dir + tc.file)
			named := `{"hook_event_name":"` + tc.event + `",` + string(b[1:])
			ev2 := Parse(Input{Payload: []byte(named), Getenv: devinEnv, Now: func() time.Time { return now }})
			is(t, "Agent (Claude Code's line)", ev2.Agent, Agent("devin"))
			is(t, "Kind (Claude Code's line)", ev2.Kind, tc.kind)
			// Without a name, nothing is shown, and it is not Claude Code's.
			ev3 := parseFile(t, dir+tc.file, "", devinEnv)
			is(t, "Agent (no name)", ev3.Agent, Agent("devin"))
			is(t, "Kind (no name)", ev3.Kind, Unknown)
		})
	}
}

// Two Devin sessions without a session_id are two sessions: each keyed on
// the devin process above the hook's shell, whatever the project.
func TestDevinSessionKey(t *testing.T) {
	root := t.TempDir()
	stat := func(pid, comm, ppid, start string) {
		d := root + "/" + pid
		os.MkdirAll(d, 0o755)
		// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
		os.WriteFile(d+"/stat", []byte(pid+" ("+comm+") S "+ppid+" 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "+start+" 0 0\n"), 0o644)
	}
	stat("90", "sh", "80", "600")
	stat("80", "devin", "1", "555")
	stat("91", "bash", "81", "700")
	stat("81", "devin", "1", "777")
	oldRoot, oldHook := procRoot, HookProcess
	defer func() { procRoot, HookProcess = oldRoot, oldHook }()
	procRoot = root
	key := func(ppid int) string {
		HookProcess = func() (int, int) { return 100, ppid }
		return parseFile(t, "devin-from-docs/03-PreToolUse.json", "devin", devinEnv, "PreToolUse").Session
	}
	a, b := key(90), key(91)
	is(t, "first", a, "devin.80.555")
	is(t, "second", b, "devin.81.777")
	// No process to read: the project.
	procRoot = root + "/none"
	c := key(90)
	if c == "" || c == a || !strings.HasPrefix(c, "devin.") {
		t.Errorf("without /proc: %q", c)
	}
	// A payload that names its session keeps it.
	ev := Parse(Input{Agent: "devin", Payload: []byte(`{"session_id":"s-1","hook_event_name":"Stop"}`), Getenv: devinEnv})
	is(t, "named", ev.Session, "s-1")
}

// Claude Code's own hooks, in a terminal Devin or Qoder started (or the
// other way round): a payload Claude Code sent stays Claude Code's.
func TestBorrowedNotClaude(t *testing.T) {
	b, err := os.ReadFile(recorded + "claude-2.1.328/04-PreToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"DEVIN_PROJECT_DIR", "QODER_PROJECT_DIR"} {
		ev := Parse(Input{Payload: b, Getenv: envOf(v, "/home/user/proj")})
		is(t, v, ev.Agent, Claude)
	}
	// A Claude-shaped payload with neither Claude Code's session variable
	// nor its transcript is the other agent's.
	p := `{"session_id":"q-1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	is(t, "qoder", Parse(Input{Payload: []byte(p), Getenv: envOf("QODER_PROJECT_DIR", "/p")}).Agent, Agent("qoder"))
	is(t, "claude session var", Parse(Input{Payload: []byte(p), Getenv: envOf("QODER_PROJECT_DIR", "/p", "CLAUDE_CODE_SESSION_ID", "q-1")}).Agent, Claude)
	// A line of another agent's is that agent's.
	is(t, "codex line", Parse(Input{Agent: "codex", Payload: []byte(p), Getenv: envOf("DEVIN_PROJECT_DIR", "/p")}).Agent, Codex)
}

func TestQoder(t *testing.T) {
	q := envOf("QODER_PROJECT_DIR", "/path/to/project", "CLAUDE_PROJECT_DIR", "/path/to/project")
	for _, flag := range []string{"", "qoder"} {
		ev := parseFile(t, "qoder-1.1.52-from-guide/01-PreToolUse.json", flag, q)
		is(t, "Agent", ev.Agent, Agent("qoder"))
		is(t, "Kind", ev.Kind, ToolStart)
		is(t, "Tool", ev.Tool, Edit)
		is(t, "Session", ev.Session, "abc-123")
		ev = parseFile(t, "qoder-1.1.52-from-guide/02-PermissionRequest.json", flag, q)
		is(t, "Kind", ev.Kind, Permission)
		is(t, "Tool", ev.Tool, Bash)
	}
}

// TestBorrowedReply: each agent's own answer, never Claude Code's: Grok
// Build's decision on pre_tool_use (runner/mod.rs GateHookJson), Devin
// CLI's on PermissionRequest (its documentation), Qoder CLI's Claude Code
// shape (its bundle's PermissionRequest output schema).
func TestBorrowedReply(t *testing.T) {
	for _, tc := range []struct {
		agent, event string
		r            Reply
		want         string
	}{
		{"grok", "pre_tool_use", Reply{Decision: Allow}, `{"decision":"allow"}`},
		{"grok", "pre_tool_use", Reply{Decision: Always}, `{"decision":"allow"}`},
		{"grok", "pre_tool_use", Reply{Decision: Deny, By: "Coucou"}, `{"decision":"deny","reason":"Denied from Coucou"}`},
		{"grok", "pre_tool_use", Reply{Decision: Allow, UpdatedInput: []byte(`{"a": 1}`)},
			`{"decision":"allow","hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"a":1}}}`},
		{"grok", "pre_tool_use", Reply{}, ""},
		{"grok", "stop", Reply{Decision: Allow}, ""},
		{"grok", "PermissionRequest", Reply{Decision: Allow}, ""},
		{"devin", "PermissionRequest", Reply{Decision: Allow, By: "Coucou"}, `{"decision":"approve","reason":"Approved from Coucou"}`},
		{"devin", "PermissionRequest", Reply{Decision: Always, By: "Coucou"}, `{"decision":"approve","reason":"Approved from Coucou"}`},
		{"devin", "PermissionRequest", Reply{Decision: Deny, By: "Coucou"}, `{"decision":"deny","reason":"Denied from Coucou"}`},
		{"devin", "PermissionRequest", Reply{}, ""},
		{"devin", "PreToolUse", Reply{Decision: Allow}, ""},
		{"qoder", "PermissionRequest", Reply{Decision: Allow}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"qoder", "PermissionRequest", Reply{Decision: Deny, By: "Coucou"}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Coucou"}}}`},
	} {
		d, ok := For(Agent(tc.agent))
		if !ok {
			t.Fatalf("no dialect %s", tc.agent)
		}
		if got := d.Reply(tc.event, tc.r); got != tc.want {
			t.Errorf("%s %s %+v: %s, want %s", tc.agent, tc.event, tc.r.Decision, got, tc.want)
		}
	}
	// Devin waits for a person only on its PermissionRequest; Grok never
	// (its own UI asks).
	is(t, "devin approves", devin.Approves(Event{Name: "PermissionRequest"}), true)
	is(t, "devin PreToolUse", devin.Approves(Event{Name: "PreToolUse"}), false)
	is(t, "grok", grok.Approves == nil, true)
}

func init() {
	base := Event{Agent: "qoder", Session: "abc-123", Cwd: "/path/to/project", Time: now}
	q := func(name, extra string, f func(*Event)) parseCase {
		payload := `{"session_id":"abc-123","cwd":"/path/to/project","hook_event_name":"` + name + `"` + extra + `}`
		return parseCase{"qoder/" + name, "qoder", nil, payload, with(base, func(e *Event) { e.Name = name; f(e) })}
	}
	parseCases = append(parseCases,
		q("SessionStart", `,"source":"startup"`, func(e *Event) { e.Kind, e.Reason = SessionStart, "startup" }),
		q("TeammateIdle", `,"teammate_name":"a","team_name":"b"`, func(e *Event) {}),
		q("UserPromptSubmit", `,"prompt":"Fix it"`, func(e *Event) { e.Kind, e.Prompt = Prompt, "Fix it" }),
		q("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls"}`, func(e *Event) {
			e.Kind, e.Tool, e.ToolInput = ToolStart, Bash, json.RawMessage(`{"command":"ls"}`)
		}),
		q("PermissionRequest", `,"tool_name":"Bash"`, func(e *Event) { e.Kind, e.Tool = Permission, Bash }),
		q("PostToolUse", `,"tool_name":"Edit"`, func(e *Event) { e.Kind, e.Tool, e.OK = ToolEnd, Edit, true }),
		q("Notification", `,"message":"Qoder needs your attention","notification_type":"idle_prompt"`, func(e *Event) {
			e.Kind, e.Message, e.Reason = Attention, "Qoder needs your attention", "idle_prompt"
		}),
		q("SubagentStart", `,"agent_id":"a1"`, func(e *Event) { e.Kind, e.Subagent = SubagentStart, "a1" }),
		q("SubagentStop", `,"agent_id":"a1"`, func(e *Event) { e.Kind, e.Subagent = SubagentStop, "a1" }),
		q("Stop", ``, func(e *Event) { e.Kind = TurnEnd }),
		q("StopFailure", `,"error":"rate_limit"`, func(e *Event) { e.Kind, e.ErrorType, e.Error = Error, "rate_limit", "rate_limit" }),
		q("PreCompact", `,"trigger":"manual"`, func(e *Event) { e.Kind, e.Reason = Compact, "manual" }),
		q("SessionEnd", `,"reason":"exit"`, func(e *Event) { e.Kind, e.Reason = SessionEnd, "exit" }),
	)
}

// Grok Build's events, one case per kind, in the table TestEveryKindCovered
// reads (TestGrok reads its payloads written from the source).
func init() {
	base := Event{Agent: "grok", Session: "g-1", Cwd: "/w", Time: time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)}
	g := func(name, extra string, f func(*Event)) parseCase {
		payload := `{"hookEventName":"` + name + `","sessionId":"g-1","cwd":"/w","workspaceRoot":"/w","timestamp":"2026-12-05T20:00:00Z"` + extra + `}`
		return parseCase{"grok/" + name, "", nil, payload, with(base, func(e *Event) { e.Name = name; f(e) })}
	}
	parseCases = append(parseCases,
		g("session_start", `,"source":"startup","modelId":"grok-4"`, func(e *Event) { e.Kind, e.Reason, e.Model = SessionStart, "startup", "grok-4" }),
		g("user_prompt_submit", `,"prompt":"Fix it"`, func(e *Event) { e.Kind, e.Prompt = Prompt, "Fix it" }),
		g("pre_tool_use", `,"toolName":"list_dir","toolUseId":"t1","toolInput":{"target_directory":"/w"}`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID = ToolStart, LS, "list_dir", "t1"
			e.ToolInput = json.RawMessage(`{"target_directory":"/w","path":"/w"}`)
		}),
		g("post_tool_use", `,"toolName":"search_replace","toolUseId":"t2","toolResult":"ok"`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.OK = ToolEnd, Edit, "search_replace", "t2", true
		}),
		g("post_tool_use_failure", `,"toolName":"web_fetch","toolUseId":"t3","error":"timeout"`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolUseID, e.Error = ToolEnd, WebFetch, "web_fetch", "t3", "timeout"
		}),
		g("permission_denied", `,"toolName":"run_terminal_command","toolUseId":"t4"`, func(e *Event) {
			e.Tool, e.AgentTool, e.ToolUseID = Bash, "run_terminal_command", "t4"
		}),
		g("notification", `,"notificationType":"idle_prompt","message":"Waiting"`, func(e *Event) {
			e.Kind, e.Reason, e.Message = Attention, "idle_prompt", "Waiting"
		}),
		g("subagent_start", `,"subagentId":"s2","subagentType":"explore"`, func(e *Event) { e.Subagent = "s2" }),
		g("stop", `,"reason":"end_turn","lastAssistantMessage":"Done."`, func(e *Event) {
			e.Kind, e.Reason, e.Message = TurnEnd, "end_turn", "Done."
		}),
		g("stop_failure", `,"error":"server_error","errorDetails":"500"`, func(e *Event) {
			e.Kind, e.ErrorType, e.Error = Error, "server_error", "500"
		}),
		g("stop_cancelled", `,"reason":"user_interrupt","cancelledBy":"user"`, func(e *Event) {
			e.Kind, e.Reason = Interrupted, "user_interrupt"
		}),
		g("pre_compact", `,"source":"auto"`, func(e *Event) { e.Kind, e.Reason = Compact, "auto" }),
		g("post_compact", `,"source":"auto"`, func(e *Event) { e.Reason = "auto" }),
		g("session_end", `,"reason":"shutdown"`, func(e *Event) { e.Kind, e.Reason = SessionEnd, "shutdown" }),
	)
}

// Devin CLI's events, one case per kind, as the lines install writes hand
// them over (the event named); TestDevin reads its documented payloads.
func init() {
	// The working directory (the test's) where the payload names none.
	base := Event{Agent: "devin", Session: "d-1", Cwd: "/home/u/proj", Time: now}
	d := func(name, extra string, f func(*Event)) parseCase {
		payload := `{"session_id":"d-1"` + extra + `}`
		return parseCase{"devin/" + name, "devin", []string{name}, payload, with(base, func(e *Event) { e.Name = name; f(e) })}
	}
	parseCases = append(parseCases,
		d("SessionStart", `,"source":"startup"`, func(e *Event) { e.Kind, e.Reason = SessionStart, "startup" }),
		d("UserPromptSubmit", `,"prompt":"Fix it"`, func(e *Event) { e.Kind, e.Prompt = Prompt, "Fix it" }),
		d("PreToolUse", `,"tool_name":"glob","tool_input":{"pattern":"*.go"}`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.ToolInput = ToolStart, Glob, "glob", json.RawMessage(`{"pattern":"*.go"}`)
		}),
		d("PermissionRequest", `,"tool_name":"exec"`, func(e *Event) { e.Kind, e.Tool, e.AgentTool = Permission, Bash, "exec" }),
		d("PostToolUse", `,"tool_name":"edit","tool_response":{"success":true}`, func(e *Event) {
			e.Kind, e.Tool, e.AgentTool, e.OK = ToolEnd, Edit, "edit", true
		}),
		d("Stop", `,"stop_hook_active":false`, func(e *Event) { e.Kind = TurnEnd }),
		d("PostCompaction", ``, func(e *Event) {}),
		d("SessionEnd", `,"reason":"exit"`, func(e *Event) { e.Kind, e.Reason = SessionEnd, "exit" }),
	)
}
