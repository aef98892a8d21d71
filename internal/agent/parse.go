package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
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
	payload, args, p := readPayload(in)
	d, known := detect(in.Agent, p, in.Getenv)
	ev := Event{Agent: d.Agent, Raw: payload}
	if !known {
		ev.Agent = Agent(in.Agent) // kept as given, parsed as Claude Code's
	}
	ev.Name = eventName(d, p, args)
	ev.Kind = kindOf(d, ev.Name)

	fill(&ev, d, p)
	if ev.Session == "" && d.Paths.SessionEnv != "" && in.Getenv != nil {
		ev.Session = in.Getenv(d.Paths.SessionEnv)
	}
	if ev.Session == "" && d.Paths.SessionKey != nil && in.Getenv != nil && payload != nil {
		ev.Session = d.Paths.SessionKey(in.Getenv)
	}
	if ev.Cwd == "" && in.Getwd != nil {
		if wd, err := in.Getwd(); err == nil {
			ev.Cwd = wd
		}
	}
	if payload == nil && (d == generic || !known) {
		// Arguments alone: a script, which may name itself with --agent.
		ev.Script = true
		script(&ev, in)
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
	if d.Refine != nil {
		d.Refine(&ev, p)
	}
	d.nameTool(&ev)
	if ev.Kind == TurnEnd && ev.Transcript != "" && d.Outcome != nil {
		d.Outcome(&ev)
	}
	if in.Transcripts && ev.Kind == TurnEnd && ev.Transcript == "" && d.Answer != nil && d.Burn != nil && d.Burn.Unnamed && in.Getenv != nil {
		// A turn end that names no transcript (Kimi Code's Stop): the
		// dialect finds it from the session, for the answer.
		ev.Transcript = d.Burn.Locate(ev, in.Getenv)
	}
	if in.Transcripts && ev.Kind == TurnEnd && ev.Transcript != "" && d.Answer != nil {
		d.Answer(&ev, in.AnswerWait)
	}
	return ev
}

// readPayload is the payload (stdin, or Codex notify's last argument, when
// stdin is empty) as a JSON object, what a cut one holds whole, or nil; the
// arguments left; and the payload parsed.
func readPayload(in Input) (payload []byte, args []string, p gjson.Result) {
	payload, args = in.Payload, in.Args
	if js, rest, ok := notifyArg(args); ok && !isObject(payload) {
		payload, args = js, rest
	}
	if in.Truncated && isObject(payload) {
		payload = Salvage(payload)
	}
	if !isObject(payload) || !json.Valid(payload) {
		return nil, args, p
	}
	return payload, args, gjson.ParseBytes(payload)
}

// eventName is the agent's name for the event: the payload's, else the
// first argument, else an agent's only event (aider names none).
func eventName(d *Dialect, p gjson.Result, args []string) string {
	name := p.Get("hook_event_name").String()
	if name == "" {
		name = p.Get("hookEventName").String() // Grok Build's envelope
	}
	if name == "" {
		name = p.Get("type").String() // Codex notify
	}
	if name == "" && len(args) > 0 {
		name = args[0]
	}
	if name == "" && len(d.Events) == 1 {
		name = d.Events[0].Name
	}
	return name
}

// detect picks the dialect: the agent that ran the hook when it runs other
// agents' hooks (Runs), then --agent, then the payload's shape, then Claude
// Code's; no payload and no --agent is a script's. known is false for an
// --agent that names no dialect.
func detect(flag string, p gjson.Result, getenv func(string) string) (d *Dialect, known bool) {
	if getenv == nil {
		getenv = noEnv
	}
	if p.Exists() {
		for _, d := range registry {
			if d.Runs != nil && d.Runs(flag, p, getenv) {
				return d, true
			}
		}
	}
	if flag != "" {
		return For(Agent(flag))
	}
	if !p.Exists() {
		return generic, true
	}
	for _, d := range registry {
		if d.Detect != nil && d.Detect(p) {
			return d, true
		}
	}
	return claude, true
}

func noEnv(string) string { return "" }

// paths are the payload paths every dialect shares (Claude Code's shape,
// which most agents copy), per Event field; a dialect's own Paths come
// after them. A field takes the first non-empty string.
var paths = Paths{
	Session:    []string{"session_id"},
	Cwd:        []string{"cwd", "workdir"},
	Transcript: []string{"transcript_path"},
	Tool:       []string{"tool_name", "tool"},
	ToolUseID:  []string{"tool_use_id", "tool_call_id"},
	Prompt:     []string{"prompt"},
	Message:    []string{"last_assistant_message", "message"},
	Model:      []string{"model"},
	Reason:     []string{"notification_type", "reason", "source", "trigger"},
	ErrorType:  []string{"error_type"},
	Subagent:   []string{"agent_id"},
	Error:      []string{"error", "error.message", "error_message"},
	ToolInput:  []string{"tool_input"},
	ToolOutput: []string{"tool_response", "tool_calls.#.tool_response"}, // PostToolBatch's, per call
}

func fill(ev *Event, d *Dialect, p gjson.Result) {
	if !p.Exists() {
		return
	}
	own := d.Paths
	for _, f := range []struct {
		dst          *string
		shared, dial []string
	}{
		{&ev.Session, paths.Session, own.Session},
		{&ev.Cwd, paths.Cwd, own.Cwd},
		{&ev.Transcript, paths.Transcript, own.Transcript},
		{&ev.Tool, paths.Tool, own.Tool},
		{&ev.ToolUseID, paths.ToolUseID, own.ToolUseID},
		{&ev.Prompt, paths.Prompt, own.Prompt},
		{&ev.Message, paths.Message, own.Message},
		{&ev.Model, paths.Model, own.Model},
		{&ev.Reason, paths.Reason, own.Reason},
		{&ev.ErrorType, paths.ErrorType, own.ErrorType},
		{&ev.Subagent, paths.Subagent, own.Subagent},
	} {
		*f.dst = firstString(p, f.shared, f.dial)
	}
	for _, path := range append(paths.Error[:len(paths.Error):len(paths.Error)], own.Error...) {
		if v := p.Get(path); v.Exists() && v.Type != gjson.Null && !v.IsObject() {
			if ev.Error = errorText(v); ev.Error != "" {
				break
			}
		}
	}
	ev.ToolInput = toolInput(p, append(paths.ToolInput[:len(paths.ToolInput):len(paths.ToolInput)], own.ToolInput...))
	if t := p.Get("timestamp"); t.Type == gjson.String {
		if ts, err := time.Parse(time.RFC3339Nano, t.Str); err == nil {
			ev.Time = ts
		}
	} else if t.Type == gjson.Number && t.Num > 0 {
		// Date.now() milliseconds (Copilot); tolerate seconds.
		ms := int64(t.Num)
		if ms < 1e11 {
			ms *= 1000
		}
		ev.Time = time.UnixMilli(ms)
	}
}

// firstString is the first non-empty string at any of the paths.
func firstString(p gjson.Result, lists ...[]string) string {
	for _, l := range lists {
		for _, path := range l {
			if v := p.Get(path); v.Type == gjson.String && v.Str != "" {
				return v.Str
			}
		}
	}
	return ""
}

// toolInput returns the tool's arguments as a JSON object: the first path
// that holds an object, or an object encoded as a string (Copilot's toolArgs).
func toolInput(p gjson.Result, paths []string) json.RawMessage {
	for _, path := range paths {
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
