package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const sid = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"

// claude builds a Claude Code payload: the common fields plus extra.
func claudePayload(event, extra string) string {
	return `{"session_id":"` + sid + `","transcript_path":"/home/u/.claude/projects/-home-u-app/` + sid + `.jsonl",` +
		`"cwd":"/home/u/app","permission_mode":"default","hook_event_name":"` + event + `"` + extra + `}`
}

func geminiPayload(event, extra string) string {
	return `{"session_id":"g-5f1e","transcript_path":"/home/u/.gemini/tmp/chats/session.json","cwd":"/home/u/app",` +
		`"hook_event_name":"` + event + `","timestamp":"2026-11-30T11:59:58.250Z"` + extra + `}`
}

func antigravityPayload(extra string) string {
	return `{"conversationId":"7c9e6679-7425-40de-944b-e07fc1f90ae7","workspacePaths":["/home/u/app"],` +
		`"transcriptPath":"/home/u/.gemini/antigravity/brain/7c9e/transcript.jsonl","artifactDirectoryPath":"/home/u/.gemini/antigravity/brain/7c9e"` + extra + `}`
}

func codexPayload(event, extra string) string {
	return `{"session_id":"019a7f3c-0000-7000-8000-00000000c0de","turn_id":"019a7f3c-1111","transcript_path":null,` +
		`"cwd":"/home/u/app","hook_event_name":"` + event + `","model":"gpt-5-codex","permission_mode":"default"` + extra + `}`
}

func cursorPayload(event, extra string) string {
	return `{"conversation_id":"conv-42","generation_id":"gen-7","hook_event_name":"` + event + `",` +
		`"workspace_roots":["/home/u/app"]` + extra + `}`
}

func copilotPayload(extra string) string {
	return `{"timestamp":1764503998250,"cwd":"/home/u/app","sessionId":"cp-9"` + extra + `}`
}

// base events, to which each case adds what its payload carries.
var (
	claudeBase = Event{Agent: Claude, Session: sid, Cwd: "/home/u/app",
		Transcript: "/home/u/.claude/projects/-home-u-app/" + sid + ".jsonl", Time: now}
	geminiBase = Event{Agent: Gemini, Session: "g-5f1e", Cwd: "/home/u/app",
		Transcript: "/home/u/.gemini/tmp/chats/session.json", Time: time.Date(2026, 11, 30, 11, 59, 58, 250e6, time.UTC)}
	agyBase = Event{Agent: Antigravity, Session: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Cwd: "/home/u/app",
		Transcript: "/home/u/.gemini/antigravity/brain/7c9e/transcript.jsonl", Time: now}
	codexBase = Event{Agent: Codex, Session: "019a7f3c-0000-7000-8000-00000000c0de", Cwd: "/home/u/app",
		Model: "gpt-5-codex", Time: now}
	cursorBase  = Event{Agent: Cursor, Session: "conv-42", Cwd: "/home/u/app", Time: now}
	copilotBase = Event{Agent: Copilot, Session: "cp-9", Cwd: "/home/u/app", Time: time.UnixMilli(1764503998250)}
)

func with(base Event, f func(*Event)) Event {
	f(&base)
	return base
}

type parseCase struct {
	name    string
	agent   string
	args    []string
	payload string
	want    Event
}

var parseCases = []parseCase{
	// Claude Code: one case per row of the table, from its hook payloads.
	{"claude/SessionStart", "", nil, claudePayload("SessionStart", `,"source":"startup","model":"claude-opus-4-6"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Reason, e.Model = SessionStart, "SessionStart", "startup", "claude-opus-4-6"
		})},
	{"claude/UserPromptSubmit", "", nil, claudePayload("UserPromptSubmit", `,"prompt":"Fix the flaky test in run_test.go"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Prompt = Prompt, "UserPromptSubmit", "Fix the flaky test in run_test.go"
		})},
	{"claude/PreToolUse", "", nil, claudePayload("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_use_id":"toolu_01ABC"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolUseID = ToolStart, "PreToolUse", "Bash", "toolu_01ABC"
			e.ToolInput = json.RawMessage(`{"command":"go test ./...","description":"Run the tests"}`)
		})},
	{"claude/PostToolUse", "", nil, claudePayload("PostToolUse", `,"tool_name":"Read","tool_input":{"file_path":"/home/u/app/go.mod"},"tool_response":{"type":"text","file":{"content":"module x"}},"tool_use_id":"toolu_02"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolUseID, e.OK = ToolEnd, "PostToolUse", "Read", "toolu_02", true
			e.ToolInput = json.RawMessage(`{"file_path":"/home/u/app/go.mod"}`)
		})},
	{"claude/PostToolUseFailure", "", nil, claudePayload("PostToolUseFailure", `,"tool_name":"Bash","tool_input":{"command":"false"},"tool_use_id":"toolu_03","error":"Exit code 1","is_interrupt":false`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolUseID, e.OK, e.Error = ToolEnd, "PostToolUseFailure", "Bash", "toolu_03", false, "Exit code 1"
			e.ToolInput = json.RawMessage(`{"command":"false"}`)
		})},
	{"claude/PostToolUseFailure/interrupt", "", nil, claudePayload("PostToolUseFailure", `,"tool_name":"Bash","tool_input":{"command":"sleep 60"},"tool_use_id":"toolu_04","error":"Interrupted by user","is_interrupt":true`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolUseID, e.Error = Interrupted, "PostToolUseFailure", "Bash", "toolu_04", "Interrupted by user"
			e.ToolInput = json.RawMessage(`{"command":"sleep 60"}`)
		})},
	{"claude/PermissionRequest", "", nil, claudePayload("PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"localSettings"}]`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Tool = Permission, "PermissionRequest", "Bash"
			e.ToolInput = json.RawMessage(`{"command":"rm -rf build"}`)
		})},
	{"claude/Notification/permission_prompt", "", nil, claudePayload("Notification", `,"message":"Claude needs your permission to use Bash","title":"Claude Code","notification_type":"permission_prompt"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Message, e.Reason = Permission, "Notification", "Claude needs your permission to use Bash", "permission_prompt"
			e.Tool = Bash // named only in words
		})},
	{"claude/Notification/idle_prompt", "", nil, claudePayload("Notification", `,"message":"Claude is waiting for your input","notification_type":"idle_prompt"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Message, e.Reason = Attention, "Notification", "Claude is waiting for your input", "idle_prompt"
		})},
	{"claude/Notification/elicitation_dialog", "", nil, claudePayload("Notification", `,"message":"An MCP server asks a question","notification_type":"elicitation_dialog"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Message, e.Reason = Attention, "Notification", "An MCP server asks a question", "elicitation_dialog"
		})},
	{"claude/Stop", "", nil, claudePayload("Stop", `,"stop_hook_active":false,"last_assistant_message":"All 42 tests pass."`),
		with(claudeBase, func(e *Event) { e.Kind, e.Name, e.Message = TurnEnd, "Stop", "All 42 tests pass." })},
	// Claude Code 2.1.328's schema (its binary): error is the category,
	// error_details the API's text, both beside last_assistant_message.
	{"claude/StopFailure", "", nil, claudePayload("StopFailure", `,"error":"rate_limit","error_details":"429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}","last_assistant_message":"API Error: Rate limit reached"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.ErrorType, e.Message = Error, "StopFailure", "rate_limit", "API Error: Rate limit reached"
			e.Error = `429 {"type":"error","error":{"type":"rate_limit_error"}}`
		})},
	{"claude/StopFailure/no details", "", nil, claudePayload("StopFailure", `,"error":"server_error"`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.ErrorType, e.Error = Error, "StopFailure", "server_error", "server_error"
		})},
	{"claude/PreCompact", "", nil, claudePayload("PreCompact", `,"trigger":"auto","custom_instructions":""`),
		with(claudeBase, func(e *Event) { e.Kind, e.Name, e.Reason = Compact, "PreCompact", "auto" })},
	{"claude/SubagentStart", "", nil, claudePayload("SubagentStart", `,"agent_id":"a-1","agent_type":"Explore"`),
		with(claudeBase, func(e *Event) { e.Kind, e.Name, e.Subagent = SubagentStart, "SubagentStart", "a-1" })},
	{"claude/SubagentStop", "", nil, claudePayload("SubagentStop", `,"agent_id":"a-1","agent_type":"Explore","stop_hook_active":false,"last_assistant_message":"Found 3 callers."`),
		with(claudeBase, func(e *Event) {
			e.Kind, e.Name, e.Message, e.Subagent = SubagentStop, "SubagentStop", "Found 3 callers.", "a-1"
		})},
	{"claude/SessionEnd", "", nil, claudePayload("SessionEnd", `,"reason":"prompt_input_exit"`),
		with(claudeBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionEnd, "SessionEnd", "prompt_input_exit" })},
	{"claude/unknown event kept", "", nil, claudePayload("TeammateIdle", `,"teammate_name":"x","future_field":{"a":[1,2]}`),
		with(claudeBase, func(e *Event) { e.Kind, e.Name = Unknown, "TeammateIdle" })},
	{"claude/positional fallback", "", []string{"Stop"}, `{"session_id":"` + sid + `","cwd":"/home/u/app"}`,
		Event{Agent: Claude, Kind: TurnEnd, Name: "Stop", Session: sid, Cwd: "/home/u/app", Time: now}},

	// Gemini CLI.
	{"gemini/SessionStart", "", nil, geminiPayload("SessionStart", `,"source":"startup"`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionStart, "SessionStart", "startup" })},
	{"gemini/BeforeAgent", "", nil, geminiPayload("BeforeAgent", `,"prompt":"Explain this repo"`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Prompt = Prompt, "BeforeAgent", "Explain this repo" })},
	{"gemini/BeforeTool", "", nil, geminiPayload("BeforeTool", `,"tool_name":"run_shell_command","tool_input":{"command":"ls -la"}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolInput = ToolStart, "BeforeTool", Bash, json.RawMessage(`{"command":"ls -la"}`)
			e.AgentTool = "run_shell_command"
		})},
	{"gemini/AfterTool", "", nil, geminiPayload("AfterTool", `,"tool_name":"read_file","tool_input":{"absolute_path":"/home/u/app/a.go"},"tool_response":{"llmContent":"package a","returnDisplay":""}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK = ToolEnd, "AfterTool", Read, true
			e.AgentTool = "read_file"
			e.ToolInput = json.RawMessage(`{"absolute_path":"/home/u/app/a.go","file_path":"/home/u/app/a.go"}`)
		})},
	{"gemini/AfterTool/error", "", nil, geminiPayload("AfterTool", `,"tool_name":"read_file","tool_input":{},"tool_response":{"llmContent":"","error":"File not found"}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.Error = ToolEnd, "AfterTool", Read, false, "File not found"
			e.AgentTool = "read_file"
			e.ToolInput = json.RawMessage(`{}`)
		})},
	// Gemini CLI 0.61 as it really sends these (issue 11, defects 9, 10, 12).
	{"gemini/AfterTool/error object", "", nil, geminiPayload("AfterTool", `,"tool_name":"read_file","tool_input":{"file_path":"nope.txt"},"tool_response":{"llmContent":"File not found: /home/u/app/nope.txt","returnDisplay":"File not found.","error":{"message":"File not found: /home/u/app/nope.txt","type":"file_not_found"}}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.Error = ToolEnd, "AfterTool", Read, false, "File not found: /home/u/app/nope.txt"
			e.AgentTool = "read_file"
			e.ToolInput = json.RawMessage(`{"file_path":"nope.txt"}`)
		})},
	{"gemini/AfterTool/shell exit code", "", nil, geminiPayload("AfterTool", `,"tool_name":"run_shell_command","tool_input":{"command":"false"},"tool_response":{"llmContent":"Output: (empty)\nExit Code: 1\nProcess Group PGID: 4242","returnDisplay":""}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.Error = ToolEnd, "AfterTool", Bash, false, "Exit Code: 1"
			e.AgentTool = "run_shell_command"
			e.ToolInput = json.RawMessage(`{"command":"false"}`)
		})},
	{"gemini/AfterTool/shell output that mentions an exit code", "", nil, geminiPayload("AfterTool", `,"tool_name":"run_shell_command","tool_input":{"command":"cat log"},"tool_response":{"llmContent":"Output: Exit Code: 3\nall good\nProcess Group PGID: 4242","returnDisplay":""}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK = ToolEnd, "AfterTool", Bash, true
			e.AgentTool = "run_shell_command"
			e.ToolInput = json.RawMessage(`{"command":"cat log"}`)
		})},
	{"gemini/Notification/ToolPermission", "", nil, geminiPayload("Notification", `,"notification_type":"ToolPermission","message":"Tool Confirm Shell Command requires execution","details":{"type":"exec","title":"Confirm Shell Command","command":"rm -rf build","rootCommand":"rm"}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Reason, e.Message = Permission, "Notification", "ToolPermission", "Tool Confirm Shell Command requires execution"
			e.Tool, e.ToolInput = Bash, json.RawMessage(`{"command":"rm -rf build"}`)
			e.AgentTool = "run_shell_command"
		})},
	{"gemini/Notification/ToolPermission edit", "", nil, geminiPayload("Notification", `,"notification_type":"ToolPermission","message":"Tool Confirm Edit: a.go requires editing","details":{"type":"edit","title":"Confirm Edit: a.go","fileName":"a.go","filePath":"/home/u/app/a.go","fileDiff":"...","originalContent":"","newContent":"x","isModifying":false}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Reason, e.Message = Permission, "Notification", "ToolPermission", "Tool Confirm Edit: a.go requires editing"
			e.Tool, e.ToolInput = Edit, json.RawMessage(`{"file_path":"/home/u/app/a.go"}`)
			e.AgentTool = "replace"
		})},
	{"gemini/Notification/ToolPermission info", "", nil, geminiPayload("Notification", `,"notification_type":"ToolPermission","message":"Tool Confirm Web Fetch requires confirmation","details":{"type":"info","title":"Confirm Web Fetch","prompt":"Summarize https://go.dev/doc/ please","urls":["https://go.dev/doc/"]}`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Reason, e.Message = Permission, "Notification", "ToolPermission", "Tool Confirm Web Fetch requires confirmation"
			e.Tool, e.ToolInput = WebFetch, json.RawMessage(`{"prompt":"Summarize https://go.dev/doc/ please","url":"https://go.dev/doc/"}`)
			e.AgentTool = "web_fetch"
		})},
	{"gemini/Notification/other", "", nil, geminiPayload("Notification", `,"notification_type":"Other","message":"Waiting"`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Reason, e.Message = Attention, "Notification", "Other", "Waiting" })},
	{"gemini/AfterAgent", "", nil, geminiPayload("AfterAgent", `,"prompt":"Explain this repo","prompt_response":"It is a hook suite.","stop_hook_active":false`),
		with(geminiBase, func(e *Event) {
			e.Kind, e.Name, e.Prompt, e.Message = TurnEnd, "AfterAgent", "Explain this repo", "It is a hook suite."
		})},
	// PreCompress (auto) fires before every model request: nothing to say.
	{"gemini/PreCompress auto", "", nil, geminiPayload("PreCompress", `,"trigger":"auto"`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Reason = Unknown, "PreCompress", "auto" })},
	{"gemini/PreCompress manual", "", nil, geminiPayload("PreCompress", `,"trigger":"manual"`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Reason = Compact, "PreCompress", "manual" })},
	{"gemini/AfterModel", "", nil, geminiPayload("AfterModel", `,"llm_request":{"model":"gemini-2.5-pro","messages":[]},"llm_response":{"text":"Hel"}`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Model = Text, "AfterModel", "gemini-2.5-pro" })},
	{"gemini/SessionEnd", "", nil, geminiPayload("SessionEnd", `,"reason":"exit"`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionEnd, "SessionEnd", "exit" })},
	{"gemini/BeforeModel is deliberately unmapped", "", nil, geminiPayload("BeforeModel", `,"llm_request":{"model":"gemini-2.5-pro"}`),
		with(geminiBase, func(e *Event) { e.Kind, e.Name, e.Model = Unknown, "BeforeModel", "gemini-2.5-pro" })},
	{"gemini/session from GEMINI_SESSION_ID", "gemini", []string{"PreToolUse"}, `{"cwd":"/home/u/app","tool_name":"glob"}`,
		Event{Agent: Gemini, Kind: ToolStart, Name: "PreToolUse", Session: "env-session", Cwd: "/home/u/app", Tool: Glob, AgentTool: "glob", Time: now}},

	// Antigravity: no event name in the payload; the installer passes it.
	{"antigravity/SessionStart", "", []string{"SessionStart"}, antigravityPayload(``),
		with(agyBase, func(e *Event) { e.Kind, e.Name = SessionStart, "SessionStart" })},
	{"antigravity/PreInvocation/first", "", []string{"PreInvocation"}, antigravityPayload(`,"invocationNum":0`),
		with(agyBase, func(e *Event) { e.Kind, e.Name = Prompt, "PreInvocation" })},
	{"antigravity/PreInvocation/absent", "", []string{"PreInvocation"}, antigravityPayload(``),
		with(agyBase, func(e *Event) { e.Kind, e.Name = Prompt, "PreInvocation" })},
	{"antigravity/PreInvocation/later", "", []string{"PreInvocation"}, antigravityPayload(`,"invocationNum":3`),
		with(agyBase, func(e *Event) { e.Kind, e.Name = Thinking, "PreInvocation" })},
	{"antigravity/PreToolUse", "", []string{"PreToolUse"}, antigravityPayload(`,"stepIdx":4,"toolCall":{"name":"run_command","args":{"CommandLine":"go test ./...","Cwd":"/home/u/app"}}`),
		with(agyBase, func(e *Event) {
			e.Kind, e.Name, e.Tool = ToolStart, "PreToolUse", Bash
			e.AgentTool = "run_command"
			e.ToolInput = json.RawMessage(`{"CommandLine":"go test ./...","Cwd":"/home/u/app","command":"go test ./..."}`)
		})},
	{"antigravity/PostToolUse", "", []string{"PostToolUse"}, antigravityPayload(`,"stepIdx":4,"toolCall":{"name":"view_file","args":{"FilePath":"/home/u/app/a.go"}}`),
		with(agyBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK = ToolEnd, "PostToolUse", Read, true
			e.AgentTool = "view_file"
			e.ToolInput = json.RawMessage(`{"FilePath":"/home/u/app/a.go","file_path":"/home/u/app/a.go"}`)
		})},
	{"antigravity/PostToolUse/error, null toolCall", "", []string{"PostToolUse"}, antigravityPayload(`,"stepIdx":5,"toolCall":null,"error":"command timed out"`),
		with(agyBase, func(e *Event) { e.Kind, e.Name, e.OK, e.Error = ToolEnd, "PostToolUse", false, "command timed out" })},
	{"antigravity/Stop", "", []string{"Stop"}, antigravityPayload(`,"executionNum":2,"terminationReason":"NO_TOOL_CALL","fullyIdle":true`),
		with(agyBase, func(e *Event) { e.Kind, e.Name, e.Reason = TurnEnd, "Stop", "NO_TOOL_CALL" })},
	{"antigravity/PostInvocation is deliberately unmapped", "antigravity", []string{"PostInvocation"}, antigravityPayload(`,"invocationNum":0`),
		with(agyBase, func(e *Event) { e.Kind, e.Name = Unknown, "PostInvocation" })},

	// Codex hooks: Claude's vocabulary, told apart by turn_id.
	{"codex/SessionStart", "codex", nil, codexPayload("SessionStart", `,"source":"startup"`),
		with(codexBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionStart, "SessionStart", "startup" })},
	{"codex/UserPromptSubmit", "", nil, codexPayload("UserPromptSubmit", `,"prompt":"add a flag"`),
		with(codexBase, func(e *Event) { e.Kind, e.Name, e.Prompt = Prompt, "UserPromptSubmit", "add a flag" })},
	{"codex/PreToolUse", "", nil, codexPayload("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"cargo test"},"tool_use_id":"call_1"`),
		with(codexBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolUseID, e.ToolInput = ToolStart, "PreToolUse", "Bash", "call_1", json.RawMessage(`{"command":"cargo test"}`)
		})},
	{"codex/PostToolUse", "", nil, codexPayload("PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"cargo test"},"tool_use_id":"call_1","tool_response":"ok"`),
		with(codexBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolUseID, e.OK = ToolEnd, "PostToolUse", "Bash", "call_1", true
			e.ToolInput = json.RawMessage(`{"command":"cargo test"}`)
		})},
	{"codex/PermissionRequest", "", nil, codexPayload("PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"git push"},"approval_context":{"sandbox_permissions":"require_escalated","justification":"network"}`),
		with(codexBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolInput = Permission, "PermissionRequest", "Bash", json.RawMessage(`{"command":"git push"}`)
		})},
	{"codex/Stop", "", nil, codexPayload("Stop", `,"stop_hook_active":false,"last_assistant_message":"Done."`),
		with(codexBase, func(e *Event) { e.Kind, e.Name, e.Message = TurnEnd, "Stop", "Done." })},
	{"codex/StopFailure", "", nil, codexPayload("StopFailure", `,"error_type":"server_error","error":"stream disconnected"`),
		with(codexBase, func(e *Event) {
			e.Kind, e.Name, e.ErrorType, e.Error = Error, "StopFailure", "server_error", "stream disconnected"
		})},
	{"codex/PreCompact", "", nil, codexPayload("PreCompact", `,"trigger":"auto"`),
		with(codexBase, func(e *Event) { e.Kind, e.Name, e.Reason = Compact, "PreCompact", "auto" })},
	{"codex/SubagentStart", "", nil, codexPayload("SubagentStart", ``),
		with(codexBase, func(e *Event) { e.Kind, e.Name = SubagentStart, "SubagentStart" })},
	{"codex/SubagentStop", "", nil, codexPayload("SubagentStop", ``),
		with(codexBase, func(e *Event) { e.Kind, e.Name = SubagentStop, "SubagentStop" })},
	{"codex/SessionEnd", "", nil, codexPayload("SessionEnd", `,"reason":"exit"`),
		with(codexBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionEnd, "SessionEnd", "exit" })},
	// SessionStart and SessionEnd carry no turn_id: the rollout transcript
	// says Codex (issue 11, defect 7).
	{"codex/SessionStart without --agent", "", nil, `{"session_id":"019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50","transcript_path":"/home/u/.codex/sessions/2026/11/30/rollout-2026-11-30T12-00-00-019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50.jsonl","cwd":"/home/u/app","hook_event_name":"SessionStart","model":"gpt-5.1-codex","permission_mode":"bypassPermissions","source":"startup"}`,
		Event{Agent: Codex, Kind: SessionStart, Name: "SessionStart", Session: "019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50", Cwd: "/home/u/app",
			Transcript: "/home/u/.codex/sessions/2026/11/30/rollout-2026-11-30T12-00-00-019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50.jsonl",
			Model:      "gpt-5.1-codex", Reason: "startup", Time: now}},
	{"codex/SessionEnd without --agent", "", nil, `{"session_id":"019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50","transcript_path":"/home/u/.codex/sessions/2026/11/30/rollout-2026-11-30T12-00-00-019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50.jsonl","cwd":"/home/u/app","hook_event_name":"SessionEnd","reason":"other"}`,
		Event{Agent: Codex, Kind: SessionEnd, Name: "SessionEnd", Session: "019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50", Cwd: "/home/u/app",
			Transcript: "/home/u/.codex/sessions/2026/11/30/rollout-2026-11-30T12-00-00-019ad6f0-7c3e-7d21-9a0b-5b1c2d3e4f50.jsonl",
			Reason:     "other", Time: now}},
	{"codex/Interrupt", "", nil, codexPayload("Interrupt", ``),
		with(codexBase, func(e *Event) { e.Kind, e.Name = Interrupted, "Interrupt" })},
	{"codex/notify agent-turn-complete", "", []string{`{"type":"agent-turn-complete","thread-id":"th-1","turn-id":"tu-2","cwd":"/home/u/app","input-messages":["first","make it faster"],"last-assistant-message":"Rewrote the loop."}`}, "",
		Event{Agent: Codex, Kind: TurnEnd, Name: "agent-turn-complete", Session: "th-1", Cwd: "/home/u/app",
			Prompt: "make it faster", Message: "Rewrote the loop.", Time: now}},
	{"codex/notify agent-turn-start after an event argument", "", []string{"turn_start", `{"type":"agent-turn-start","thread-id":"th-1","turn-id":"tu-3","cwd":"/home/u/app","input-messages":["go"]}`}, "",
		Event{Agent: Codex, Kind: Prompt, Name: "agent-turn-start", Session: "th-1", Cwd: "/home/u/app", Prompt: "go", Time: now}},
	{"codex/notify with a null message", "", []string{`{"type":"agent-turn-complete","thread-id":"th-1","turn-id":"tu-2","cwd":"/w","input-messages":[],"last-assistant-message":null}`}, "",
		Event{Agent: Codex, Kind: TurnEnd, Name: "agent-turn-complete", Session: "th-1", Cwd: "/w", Time: now}},

	// Cursor.
	{"cursor/sessionStart", "", nil, cursorPayload("sessionStart", ``),
		with(cursorBase, func(e *Event) { e.Kind, e.Name = SessionStart, "sessionStart" })},
	{"cursor/beforeSubmitPrompt", "", nil, cursorPayload("beforeSubmitPrompt", `,"prompt":"rename foo","attachments":[]`),
		with(cursorBase, func(e *Event) { e.Kind, e.Name, e.Prompt = Prompt, "beforeSubmitPrompt", "rename foo" })},
	{"cursor/preToolUse", "", nil, cursorPayload("preToolUse", `,"tool_name":"Read","tool_input":{"file_path":"a.go"}`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolInput = ToolStart, "preToolUse", "Read", json.RawMessage(`{"file_path":"a.go"}`)
		})},
	{"cursor/beforeShellExecution", "", nil, cursorPayload("beforeShellExecution", `,"command":"npm test","cwd":"/home/u/app/web"`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.Cwd, e.ToolInput = ToolStart, "beforeShellExecution", Bash, "/home/u/app/web", json.RawMessage(`{"command":"npm test"}`)
			e.AgentTool = "Shell"
		})},
	{"cursor/beforeMCPExecution", "", nil, cursorPayload("beforeMCPExecution", `,"tool_name":"search_issues","tool_input":{"q":"bug"},"url":"http://localhost:7000"`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolInput = ToolStart, "beforeMCPExecution", "search_issues", json.RawMessage(`{"q":"bug"}`)
		})},
	{"cursor/postToolUse", "", nil, cursorPayload("postToolUse", `,"tool_name":"Read","tool_input":{"file_path":"a.go"}`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.ToolInput = ToolEnd, "postToolUse", "Read", true, json.RawMessage(`{"file_path":"a.go"}`)
		})},
	{"cursor/afterShellExecution", "", nil, cursorPayload("afterShellExecution", `,"command":"npm test","output":"ok"`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.ToolInput = ToolEnd, "afterShellExecution", Bash, true, json.RawMessage(`{"command":"npm test"}`)
			e.AgentTool = "Shell"
		})},
	{"cursor/afterFileEdit", "", nil, cursorPayload("afterFileEdit", `,"file_path":"/home/u/app/a.go","edits":[{"old_string":"a","new_string":"b"}]`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.ToolInput = ToolEnd, "afterFileEdit", "Edit", true, json.RawMessage(`{"file_path":"/home/u/app/a.go"}`)
		})},
	{"cursor/postToolUseFailure", "", nil, cursorPayload("postToolUseFailure", `,"tool_name":"Shell","tool_input":{"command":"x"},"error_message":"not found"`),
		with(cursorBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.Error, e.ToolInput = ToolEnd, "postToolUseFailure", Bash, false, "not found", json.RawMessage(`{"command":"x"}`)
			e.AgentTool = "Shell"
		})},
	{"cursor/stop completed", "", nil, cursorPayload("stop", `,"status":"completed","loop_count":0`),
		with(cursorBase, func(e *Event) { e.Kind, e.Name, e.Reason = TurnEnd, "stop", "completed" })},
	{"cursor/stop aborted", "", nil, cursorPayload("stop", `,"status":"aborted"`),
		with(cursorBase, func(e *Event) { e.Kind, e.Name, e.Reason = Interrupted, "stop", "aborted" })},
	{"cursor/stop error", "", nil, cursorPayload("stop", `,"status":"error"`),
		with(cursorBase, func(e *Event) { e.Kind, e.Name, e.Reason = Error, "stop", "error" })},
	{"cursor/preCompact", "", nil, cursorPayload("preCompact", `,"trigger":"auto"`),
		with(cursorBase, func(e *Event) { e.Kind, e.Name, e.Reason = Compact, "preCompact", "auto" })},
	{"cursor/subagentStart", "", nil, cursorPayload("subagentStart", ``),
		with(cursorBase, func(e *Event) { e.Kind, e.Name = SubagentStart, "subagentStart" })},
	{"cursor/subagentStop", "", nil, cursorPayload("subagentStop", ``),
		with(cursorBase, func(e *Event) { e.Kind, e.Name = SubagentStop, "subagentStop" })},
	{"cursor/sessionEnd", "", nil, cursorPayload("sessionEnd", `,"reason":"user_close"`),
		with(cursorBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionEnd, "sessionEnd", "user_close" })},

	// GitHub Copilot CLI: camelCase events given as the argument.
	{"copilot/sessionStart", "", []string{"sessionStart"}, copilotPayload(`,"source":"new","initialPrompt":"fix the build"`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Reason, e.Prompt = SessionStart, "sessionStart", "new", "fix the build"
		})},
	{"copilot/userPromptSubmitted", "", []string{"userPromptSubmitted"}, copilotPayload(`,"prompt":"and the tests"`),
		with(copilotBase, func(e *Event) { e.Kind, e.Name, e.Prompt = Prompt, "userPromptSubmitted", "and the tests" })},
	{"copilot/preToolUse, toolArgs as a string", "", []string{"preToolUse"}, copilotPayload(`,"toolName":"bash","toolArgs":"{\"command\":\"make\"}"`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolInput = ToolStart, "preToolUse", "Bash", json.RawMessage(`{"command":"make"}`)
			e.AgentTool = "bash"
		})},
	{"copilot/postToolUse", "", []string{"postToolUse"}, copilotPayload(`,"toolName":"view","toolArgs":{"path":"a.go"},"toolResult":{"resultType":"success","textResultForLlm":"..."}`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.ToolInput = ToolEnd, "postToolUse", "Read", true, json.RawMessage(`{"path":"a.go","file_path":"a.go"}`)
			e.AgentTool = "view"
		})},
	{"copilot/postToolUse failure", "", []string{"postToolUse"}, copilotPayload(`,"toolName":"bash","toolArgs":{"command":"x"},"toolResult":{"resultType":"failure"}`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.OK, e.ToolInput = ToolEnd, "postToolUse", "Bash", false, json.RawMessage(`{"command":"x"}`)
			e.AgentTool = "bash"
		})},
	// permissionRequest fires for every tool that is not read-only, even
	// allowed ones: nobody is asked (Review, not Permission). toolInput,
	// not toolArgs, there.
	{"copilot/permissionRequest", "", []string{"permissionRequest"}, copilotPayload(`,"hookName":"permissionRequest","toolName":"bash","toolInput":{"command":"rm x","description":"Remove x"},"permissionSuggestions":[]`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Tool, e.ToolInput = Review, "permissionRequest", "Bash", json.RawMessage(`{"command":"rm x","description":"Remove x"}`)
			e.AgentTool = "bash"
		})},
	{"copilot/create", "", []string{"preToolUse"}, copilotPayload(`,"toolName":"create","toolArgs":{"path":"/home/u/app/a.txt","file_text":"hi"}`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Tool = ToolStart, "preToolUse", "Write"
			e.AgentTool = "create"
			e.ToolInput = json.RawMessage(`{"path":"/home/u/app/a.txt","file_text":"hi","file_path":"/home/u/app/a.txt","content":"hi"}`)
		})},
	{"copilot/notification permission_prompt", "", []string{"notification"}, copilotPayload(`,"message":"Run command: rm x","title":"Permission needed","notification_type":"permission_prompt"`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Message, e.Reason = Permission, "notification", "Run command: rm x", "permission_prompt"
		})},
	{"copilot/notification", "", []string{"notification"}, copilotPayload(`,"message":"waiting"`),
		with(copilotBase, func(e *Event) { e.Kind, e.Name, e.Message = Attention, "notification", "waiting" })},
	{"copilot/agentStop", "copilot", []string{"agentStop"}, copilotPayload(``),
		with(copilotBase, func(e *Event) { e.Kind, e.Name = TurnEnd, "agentStop" })},
	{"copilot/errorOccurred", "", []string{"errorOccurred"}, copilotPayload(`,"error":{"message":"model overloaded","name":"APIError","stack":"..."}`),
		with(copilotBase, func(e *Event) {
			e.Kind, e.Name, e.Error, e.ErrorType = Error, "errorOccurred", "model overloaded", "APIError"
		})},
	{"copilot/preCompact", "", []string{"preCompact"}, copilotPayload(`,"trigger":"auto"`),
		with(copilotBase, func(e *Event) { e.Kind, e.Name, e.Reason = Compact, "preCompact", "auto" })},
	{"copilot/subagentStart", "", []string{"subagentStart"}, copilotPayload(``),
		with(copilotBase, func(e *Event) { e.Kind, e.Name = SubagentStart, "subagentStart" })},
	{"copilot/subagentStop", "", []string{"subagentStop"}, copilotPayload(``),
		with(copilotBase, func(e *Event) { e.Kind, e.Name = SubagentStop, "subagentStop" })},
	{"copilot/sessionEnd", "", []string{"sessionEnd"}, copilotPayload(`,"reason":"complete"`),
		with(copilotBase, func(e *Event) { e.Kind, e.Name, e.Reason = SessionEnd, "sessionEnd", "complete" })},

	// Aider sends nothing at all.
	{"aider", "aider", nil, "",
		Event{Agent: Aider, Kind: TurnEnd, Name: "notification", Session: "proj", Cwd: "/home/u/proj", Time: now}},
	// A script with no payload, run where an agent names its session
	// (parse's environment has GEMINI_SESSION_ID): the agent's session.
	{"generic", "", []string{"session_end"}, "",
		Event{Agent: Generic, Kind: SessionEnd, Name: "session_end", Session: "env-session", Cwd: "/home/u/proj", Time: now, Script: true}},
	// An agent this suite has no dialect for, writing Claude-shaped JSON.
	{"unknown agent", "amp", nil, `{"hook_event_name":"PreToolUse","session_id":"oc-1","cwd":"/w","tool_name":"bash","tool_input":{"command":"ls"}}`,
		Event{Agent: "amp", Kind: ToolStart, Name: "PreToolUse", Session: "oc-1", Cwd: "/w", Tool: "bash",
			ToolInput: json.RawMessage(`{"command":"ls"}`), Time: now}},
	{"snake_case name", "", []string{"pre_tool_use"}, `{"session_id":"s"}`,
		Event{Agent: Claude, Kind: ToolStart, Name: "pre_tool_use", Session: "s", Cwd: "/home/u/proj", Time: now}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got := parse(tc.agent, tc.payload, tc.args...)
			got.Raw = nil
			compactInput(&got)
			want := tc.want
			compactInput(&want)
			if want.AgentTool == "" {
				want.AgentTool = want.Tool // the agent sent the canonical name
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(want))
			}
		})
	}
}

// TestEveryKindCovered keeps the table honest: each dialect column of
// ARCHITECTURE.md's event table has at least one case.
func TestEveryKindCovered(t *testing.T) {
	seen := map[Agent]map[Kind]bool{}
	for _, tc := range parseCases {
		if seen[tc.want.Agent] == nil {
			seen[tc.want.Agent] = map[Kind]bool{}
		}
		seen[tc.want.Agent][tc.want.Kind] = true
	}
	for _, d := range Dialects() {
		if d.Settings == nil {
			continue // the others borrow Claude Code's events, or have one
		}
		for _, n := range d.Events {
			if !seen[d.Agent][n.Kind] {
				t.Errorf("%s: no case produces %q (from %s)", d.Agent, n.Kind, n.Name)
			}
		}
	}
}

func TestParseHostile(t *testing.T) {
	for _, payload := range []string{"", " \n", "null", "[]", `"str"`, "42", "{", `{"session_id":`,
		"{\"session_id\":\"\xff\xfe\"}", `{"hook_event_name":{"x":1},"session_id":["a"],"tool_input":"not json"}`,
		`{"toolArgs":"{broken","timestamp":-5}`, `{"input-messages":"x","error":{"message":{"deep":true}}}`} {
		ev := parse("", payload, "Stop")
		if ev.Kind != TurnEnd && !bytes.HasPrefix(bytes.TrimSpace([]byte(payload)), []byte("{")) {
			t.Errorf("%q: the positional event was lost: %+v", payload, ev)
		}
	}
}

func TestParseTruncated(t *testing.T) {
	payload := `{"session_id":"abc","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"xxxxxxxx`
	in := Input{Payload: []byte(payload), Truncated: true, Now: func() time.Time { return now }}
	ev := Parse(in)
	if ev.Session != "abc" || ev.Kind != ToolStart || ev.Tool != "Write" {
		t.Errorf("the leading fields of a truncated payload were lost: %+v", ev)
	}
	in.Truncated = false
	if ev := Parse(in); ev.Session != "" || ev.Raw != nil {
		t.Errorf("an invalid payload that was not truncated was read: %+v", ev)
	}
}

func parse(agentFlag, payload string, args ...string) Event {
	return Parse(Input{
		Agent:   agentFlag,
		Payload: []byte(payload),
		Args:    args,
		Getenv: func(k string) string {
			if k == "GEMINI_SESSION_ID" {
				return "env-session"
			}
			return ""
		},
		Getwd: func() (string, error) { return "/home/u/proj", nil },
		Now:   func() time.Time { return now },
	})
}

func compactInput(e *Event) {
	if e.ToolInput == nil {
		return
	}
	var b bytes.Buffer
	if json.Compact(&b, e.ToolInput) == nil {
		e.ToolInput = b.Bytes()
	}
}

func dump(e Event) string {
	return fmt.Sprintf("%+v (input %s)", e, e.ToolInput)
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.agent, tc.payload, fmt.Sprint(tc.args))
	}
	f.Fuzz(func(t *testing.T, agentFlag, payload, arg string) {
		ev := Parse(Input{Agent: agentFlag, Payload: []byte(payload), Args: []string{arg}, Now: func() time.Time { return now }})
		if ev.Agent == "" {
			t.Fatal("no agent")
		}
		if ev.ToolInput != nil && !json.Valid(ev.ToolInput) {
			t.Fatalf("tool input is not JSON: %q", ev.ToolInput)
		}
		if ev.Raw != nil && ev.Raw[0] != '{' && !bytes.HasPrefix(bytes.TrimSpace(ev.Raw), []byte("{")) {
			t.Fatalf("raw payload is not an object: %q", ev.Raw)
		}
	})
}
