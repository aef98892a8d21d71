package agent

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// Input is everything an invocation knows about the event.
type Input struct {
	// Agent is the --agent flag; empty when not given.
	Agent string
	// Payload is the hook JSON read from stdin, if any.
	Payload []byte
	// Truncated says the payload was cut at the stdin cap. Its leading fields
	// are still read; otherwise a payload that is not valid JSON is ignored.
	Truncated bool
	// Args are the positional arguments: an event name, and for Codex's notify
	// program its JSON as the last one.
	Args []string
	// Getenv and Getwd are the process's, or a test's. Either may be nil.
	Getenv func(string) string
	Getwd  func() (string, error)
	// Now is the clock for events that carry no time. Nil means time.Now.
	Now func() time.Time
	// Script is the generic dialect's flags. They are read only when there
	// is no payload: hook JSON on stdin wins.
	Script Script
	// Terminal names the controlling terminal's device (/dev/pts/4), or "":
	// the last resort for a script's session. Nil means none.
	Terminal func() string
	// Transcripts lets Parse read the agent's transcript for what a turn
	// end leaves out (see answer); the runtime sets it, tests may not.
	Transcripts bool
	// AnswerWait is how long a turn end whose answer is not in the
	// transcript yet waits for it (Copilot CLI writes it after agentStop);
	// 0 looks once, and leaves Event.AnswerPending set if it is not there.
	AnswerWait time.Duration
}

// Parse detects the dialect and returns the canonical event. It never fails:
// an input it cannot make sense of yields an event of kind Unknown, and what
// could be read is kept.
func Parse(in Input) Event {
	payload, args := in.Payload, in.Args
	if js, rest, ok := notifyArg(args); ok && !isObject(payload) {
		// Codex notify: the JSON is the last argument and stdin is empty.
		payload, args = js, rest
	}
	if in.Truncated && isObject(payload) {
		payload = Salvage(payload)
	}
	p := gjson.Result{}
	if isObject(payload) && json.Valid(payload) {
		p = gjson.ParseBytes(payload)
	} else {
		payload = nil
	}

	ev := Event{Agent: detect(in.Agent, p), Raw: payload}
	ev.Name = p.Get("hook_event_name").String()
	if ev.Name == "" {
		ev.Name = p.Get("type").String() // Codex notify
	}
	if ev.Name == "" && len(args) > 0 {
		ev.Name = args[0]
	}
	if ev.Agent == Aider && ev.Name == "" {
		ev.Name = "notification"
	}
	ev.Kind = kindOf(ev.Agent, ev.Name)
	if ev.Agent == Aider {
		ev.Kind = TurnEnd // every aider notification means "done, your turn"
	}

	fill(&ev, p)
	if ev.Session == "" && ev.Agent == Gemini && in.Getenv != nil {
		ev.Session = in.Getenv("GEMINI_SESSION_ID")
	}
	if ev.Cwd == "" && in.Getwd != nil {
		if wd, err := in.Getwd(); err == nil {
			ev.Cwd = wd
		}
	}
	if _, known := dialects[ev.Agent]; payload == nil && (ev.Agent == Generic || !known) {
		// Arguments alone: a script, which may name itself with --agent.
		ev.Script = true
		script(&ev, in)
	}
	if ev.Session == "" && ev.Agent == Aider && ev.Cwd != "" {
		ev.Session = filepath.Base(ev.Cwd)
	}
	if ev.Time.IsZero() {
		if in.Now != nil {
			ev.Time = in.Now()
		} else {
			ev.Time = time.Now()
		}
	}
	if ev.Kind == ToolEnd {
		ev.OK = true // until the dialect says otherwise
	}
	if d, ok := dialects[ev.Agent]; ok && d.refine != nil {
		d.refine(&ev, p)
	} else if !ok {
		refineClaude(&ev, p) // an unknown --agent writes Claude-shaped JSON
	}
	if in.Transcripts && ev.Kind == TurnEnd && ev.Transcript != "" {
		answer(&ev, in.AnswerWait)
	}
	return ev
}

// answer reads a turn's final answer from the transcript where the turn end
// does not carry it: Gemini CLI's prompt_response is the whole turn's text,
// the narration before each tool call included; Copilot CLI's agentStop has
// none, and writes its events file behind: the answer may come a moment
// after the hook fires, for which a turn end waits up to wait (else it is
// left pending).
func answer(ev *Event, wait time.Duration) {
	switch ev.Agent {
	case Gemini:
		a, found, err := transcript.GeminiAnswer(ev.Transcript, transcript.TailLimits{})
		// The transcript must agree with the payload: a stale or foreign
		// file does not replace what the agent said.
		if err == nil && found && strings.TrimSpace(a) != "" &&
			strings.HasSuffix(strings.TrimSpace(ev.Message), strings.TrimSpace(a)) {
			ev.Message = strings.TrimSpace(a)
		}
	case Copilot:
		if ev.Message != "" {
			return
		}
		// Copilot CLI 1.0.102 writes events.jsonl behind: at agentStop the
		// answer (in a short session, the file itself) may be a moment away.
		for deadline := time.Now().Add(wait); ; {
			a, found, _ := transcript.CopilotAnswer(ev.Transcript, transcript.TailLimits{})
			if found {
				ev.Message, ev.AnswerPending = a, false
				return
			}
			ev.AnswerPending = true
			if time.Now().Add(copilotPoll).After(deadline) {
				return
			}
			time.Sleep(copilotPoll)
		}
	}
}

// CopilotSettle is how long a Copilot turn end that must be sent at once
// waits for its answer to reach the transcript, and copilotPoll how often it
// looks.
const (
	CopilotSettle = 600 * time.Millisecond
	copilotPoll   = 20 * time.Millisecond
)

// gemininames are the hook_event_name values only Gemini CLI sends.
var geminiNames = map[string]bool{
	"BeforeAgent": true, "AfterAgent": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true, "PreCompress": true,
}

// agentAliases are the --agent spellings that name a dialect.
var agentAliases = map[string]Agent{
	"claude": Claude, "claude-code": Claude, "claude-desktop": Claude,
	"gemini": Gemini, "gemini-cli": Gemini,
	"antigravity": Antigravity, "agy": Antigravity,
	"codex": Codex, "cursor": Cursor, "copilot": Copilot, "aider": Aider,
	"generic": Generic,
}

// detect picks the dialect: --agent wins, then the payload's shape, then Claude.
func detect(flag string, p gjson.Result) Agent {
	if flag != "" {
		if a, ok := agentAliases[strings.ToLower(flag)]; ok {
			return a
		}
		return Agent(flag)
	}
	if !p.Exists() {
		return Generic
	}
	name := p.Get("hook_event_name").String()
	switch {
	case p.Get("type").String() != "" && strings.HasPrefix(p.Get("type").String(), "agent-turn-"):
		return Codex // notify
	case name == "" && (p.Get("conversationId").Exists() || p.Get("toolCall").Exists() || p.Get("workspacePaths").Exists()):
		return Antigravity
	case geminiNames[name]:
		return Gemini
	case p.Get("conversation_id").Exists() && p.Get("workspace_roots").Exists():
		return Cursor
	case p.Get("toolName").Exists() || p.Get("toolArgs").Exists() || p.Get("timestamp").Type == gjson.Number:
		return Copilot
	case p.Get("turn_id").Exists():
		return Codex
	case isRollout(p.Get("transcript_path").String()):
		// Codex's SessionStart and SessionEnd carry no turn_id; its
		// transcript is a rollout file (~/.codex/sessions/…/rollout-….jsonl).
		return Codex
	case p.Get("timestamp").Type == gjson.String && name != "":
		// Gemini stamps every payload with an ISO time; Claude Code sends none.
		return Gemini
	}
	return Claude
}

func isRollout(path string) bool {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
}

// fields lists, for each Event field, the payload paths that carry it in some
// dialect, most specific first. A field takes the first non-empty string.
var fields = []struct {
	dst   func(*Event) *string
	paths []string
}{
	{func(e *Event) *string { return &e.Session }, []string{"session_id", "conversationId", "conversation_id", "sessionId", "thread-id", "GEMINI_SESSION_ID"}},
	{func(e *Event) *string { return &e.Cwd }, []string{"cwd", "workspacePaths.0", "workspace_roots.0", "workdir"}},
	{func(e *Event) *string { return &e.Transcript }, []string{"transcript_path", "transcriptPath"}},
	{func(e *Event) *string { return &e.Tool }, []string{"tool_name", "toolName", "toolCall.name", "tool"}},
	{func(e *Event) *string { return &e.ToolUseID }, []string{"tool_use_id", "toolUseId", "tool_call_id", "toolCallId"}},
	{func(e *Event) *string { return &e.Prompt }, []string{"prompt", "initialPrompt", "input-messages.@reverse.0"}},
	{func(e *Event) *string { return &e.Message }, []string{"last_assistant_message", "prompt_response", "last-assistant-message", "message"}},
	{func(e *Event) *string { return &e.Model }, []string{"model", "llm_request.model"}},
	{func(e *Event) *string { return &e.Reason }, []string{"notification_type", "reason", "source", "trigger", "terminationReason", "status"}},
	{func(e *Event) *string { return &e.ErrorType }, []string{"error_type", "error.name"}},
}

func fill(ev *Event, p gjson.Result) {
	if !p.Exists() {
		return
	}
	for _, f := range fields {
		for _, path := range f.paths {
			if v := p.Get(path); v.Type == gjson.String && v.Str != "" {
				*f.dst(ev) = v.Str
				break
			}
		}
	}
	for _, path := range []string{"error", "error.message", "error_message"} {
		if v := p.Get(path); v.Exists() && v.Type != gjson.Null && !v.IsObject() {
			if ev.Error = errorText(v); ev.Error != "" {
				break
			}
		}
	}
	ev.ToolInput = toolInput(p)
	if t := p.Get("timestamp"); t.Type == gjson.String {
		if ts, err := time.Parse(time.RFC3339Nano, t.Str); err == nil {
			ev.Time = ts
		}
	} else if t.Type == gjson.Number && t.Num > 0 {
		// Copilot: Date.now() milliseconds; tolerate seconds.
		ms := int64(t.Num)
		if ms < 1e11 {
			ms *= 1000
		}
		ev.Time = time.UnixMilli(ms)
	}
}

// toolInput returns the tool's arguments as a JSON object: Claude's
// tool_input, Copilot's toolArgs (an object, or an object encoded as a
// string) or toolInput (on permissionRequest), Antigravity's toolCall.args.
func toolInput(p gjson.Result) json.RawMessage {
	for _, path := range []string{"tool_input", "toolArgs", "toolInput", "toolCall.args"} {
		v := p.Get(path)
		if v.IsObject() {
			return json.RawMessage(v.Raw)
		}
		if v.Type == gjson.String {
			if s := strings.TrimSpace(v.Str); strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
				return json.RawMessage(s)
			}
		}
	}
	return nil
}

// object builds {"key": value} from a payload value, or nil when it is absent.
func object(key string, v gjson.Result) json.RawMessage {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return json.RawMessage(`{` + strconv.Quote(key) + `:` + v.Raw + `}`)
}

func errorText(v gjson.Result) string {
	if v.Type == gjson.True {
		return "error"
	}
	if v.Type == gjson.False {
		return ""
	}
	return v.String()
}

// notifyArg finds Codex's notify JSON: the last argument, a JSON object.
func notifyArg(args []string) (payload []byte, rest []string, ok bool) {
	if len(args) == 0 {
		return nil, args, false
	}
	last := []byte(strings.TrimSpace(args[len(args)-1]))
	if !isObject(last) || !json.Valid(last) {
		return nil, args, false
	}
	return last, args[:len(args)-1], true
}

// Salvage rebuilds an object cut at the stdin cap from its complete
// top-level fields: the field the cut went through, and anything after it,
// are dropped.
//
// Validity is checked with encoding/json, not gjson: its scanner is
// iterative and refuses nesting deeper than 10000, where gjson's validator
// recurses once per level (a payload of millions of brackets took seconds
// and hundreds of megabytes of stack). The same goes for every check of a
// payload's validity: linear time, bounded depth.
func Salvage(payload []byte) []byte {
	out := []byte{'{'}
	gjson.ParseBytes(payload).ForEach(func(k, v gjson.Result) bool {
		if !json.Valid([]byte(k.Raw)) || !json.Valid([]byte(v.Raw)) {
			return false // the field the cut went through, and nothing after
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, k.Raw...), ':'), v.Raw...)
		return true
	})
	return append(out, '}')
}

func isObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}
