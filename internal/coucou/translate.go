// Package coucou relays agent hooks to Coucou, the notch app: one JSON
// object per connection on a local socket, in Claude Code's hook vocabulary,
// and, for agents that take them, approval decisions back.
package coucou

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// appNames are the event names the app reads: Claude Code's hook
// vocabulary, which the app was built on, and Codex's Interrupt, which
// Coucou's own installer wires. A line keeps the agent's own name when it
// is one of these.
var appNames = map[string]bool{
	"SessionStart": true, "UserPromptSubmit": true, "PreToolUse": true, "PostToolUse": true,
	"PostToolUseFailure": true, "PermissionRequest": true, "Notification": true, "Stop": true,
	"StopFailure": true, "SubagentStart": true, "SubagentStop": true, "PreCompact": true,
	"SessionEnd": true, "Interrupt": true,
}

// kindNames name each kind in the app's vocabulary, for an agent whose own
// name the app does not read.
var kindNames = map[agent.Kind]string{
	agent.SessionStart:  "SessionStart",
	agent.Prompt:        "UserPromptSubmit",
	agent.Thinking:      "UserPromptSubmit",
	agent.ToolStart:     "PreToolUse",
	agent.ToolEnd:       "PostToolUse", // PostToolUseFailure when it failed
	agent.Permission:    "PermissionRequest",
	agent.Review:        "PermissionRequest", // relayed only with --approvals
	agent.Attention:     "Notification",
	agent.TurnEnd:       "Stop",
	agent.Interrupted:   "Stop",
	agent.Error:         "StopFailure",
	agent.Compact:       "PreCompact",
	agent.SubagentStart: "SubagentStart",
	agent.SubagentStop:  "SubagentStop",
	agent.SessionEnd:    "SessionEnd",
}

// AppName is ev's name in the app's vocabulary: the agent's own when the
// app reads it, else its kind's. An event of no kind keeps its name. A
// notification that asks for a permission stays a notification: the card
// that waits is for an agent's permission request only.
func AppName(ev agent.Event) string {
	var static agent.Kind // the name's kind, before the payload refined it
	if d, _ := agent.For(ev.Agent); d != nil {
		static, _ = d.KindOf(ev.Name)
	}
	// A turn end the dialect found failed (Droid's Stop naming a failed
	// request) is the app's StopFailure, whatever the agent called it.
	failedTurn := static == agent.TurnEnd && ev.Kind == agent.Error
	if appNames[ev.Name] && !failedTurn || ev.Kind == agent.Unknown {
		return ev.Name
	}
	switch {
	case ev.Kind == agent.ToolEnd && !ev.OK:
		return "PostToolUseFailure"
	case ev.Kind == agent.Permission && static != agent.Permission && static != agent.Review:
		return "Notification"
	}
	if n, ok := kindNames[ev.Kind]; ok {
		return n
	}
	return ev.Name
}

// Limits of the channel (the Rust relay's, which the app was built against).
const (
	MaxField      = 2000      // bytes per string, cut on a rune boundary, plus …
	MaxDiffField  = 256 << 10 // bytes per rendered diff field
	MaxDiffTotal  = 512 << 10 // bytes of diff fields in all
	MaxLine       = 1<<20 - 1 // the app's payload cap, newline excluded
	diffTruncated = "coucou_diff_truncated"
)

// ValidAgent reports whether name can tag a payload: the app routes valid
// names to their own pill, and anything else (including "claude") to Claude
// Code's. A valid name is what the app's validateAgent accepts,
// ^[a-z0-9-]{1,24}$: checked by hand, since compiling that expression (24
// copies of the class) cost every hook of nb-hook and hookwire some 0.7M
// instructions at package init.
func ValidAgent(name string) bool {
	if len(name) < 1 || len(name) > 24 || name == "claude" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Input is what Translate needs besides the payload.
type Input struct {
	Event  string // the positional event name, used when the payload names none
	Agent  string // --agent, validated by the caller
	Getenv func(string) string
	Getwd  func() (string, error)
	// Truncated says the payload was cut at the stdin cap: its complete
	// leading fields are relayed, the one that was cut is not.
	Truncated bool
	// Parsed is the event as the agent's dialect reads it, when known: it
	// names the line's event (AppName), and its session, directory, tool
	// in the canonical words, the tool's input, prompt and a turn's final
	// answer fill the fields the payload lacks under Claude Code's names.
	Parsed *agent.Event
	// Now stamps the line (EventTime); the zero time leaves it unstamped.
	Now time.Time
	// Kind is coucou_kind, what the line is to the app (KindAsk), if not an
	// event.
	Kind string
}

// EventTime is the relay's clock on every line, in microseconds since the
// epoch (the Rust relay's coucou_event_time_us). The Linux and Windows app's
// auto-quit orders a session's events by it, and without it marks the
// session uncertain and never quits it. It is the relay's to set: a value in
// the payload is replaced.
const EventTime = "coucou_event_time_us"

// TermEditor is the field that routes Claude Code running in Cursor's
// integrated terminal to Cursor's pill.
const TermEditor = "term_editor"

// termEditor is "cursor" when the hook runs in Cursor's integrated terminal.
// Cursor sets TERM_PROGRAM=vscode as VS Code does, so it is told apart as
// the Rust relay does it: by its own CURSOR_TRACE_ID, or by the executable
// behind VS Code's git helper (VSCODE_GIT_ASKPASS_NODE) being Cursor's.
func termEditor(in Input) string {
	if getenv(in, "CURSOR_TRACE_ID") != "" {
		return "cursor"
	}
	helper := getenv(in, "VSCODE_GIT_ASKPASS_NODE")
	exe := helper[strings.LastIndexAny(helper, `/\`)+1:]
	if strings.HasPrefix(strings.ToLower(exe), "cursor") {
		return "cursor"
	}
	return ""
}

// dropped are fields the app never reads and that can be huge. A tool's
// output goes too, wherever the agent's dialect keeps it (dropToolOutput).
var dropped = []string{"transcript_path", "transcriptPath"}

// terminal is the context the app uses to find the terminal or IDE to
// focus, read from the environment; it never overwrites the payload.
var terminal = []struct{ field, env string }{
	{"term_program", "TERM_PROGRAM"},
	{"iterm_session_id", "ITERM_SESSION_ID"},
	{"term_session_id", "TERM_SESSION_ID"},
	{"bundle_id", "__CFBundleIdentifier"},
	{"terminal_emulator", "TERMINAL_EMULATOR"},
	{"wt_session", "WT_SESSION"},
	{"vscode_pid", "VSCODE_PID"},
	{"session_pid", "CLAUDE_CODE_SSE_PORT"},
}

// Translate turns an agent's hook payload into the line the app reads: the
// event named in Claude Code's vocabulary, the agent's field names filled
// in under Claude's (never overwriting), the terminal context added, the
// big fields the app does not read dropped, and every string capped. It
// returns the line (without its newline) and the translated event name; ok
// is false when the payload is not a JSON object, which is never relayed.
func Translate(payload []byte, in Input) (line []byte, event string, ok bool) {
	if in.Truncated {
		payload = agent.Salvage(payload)
	}
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if dec.Decode(&p) != nil || p == nil {
		return nil, "", false
	}

	event = eventName(p, in)
	addContext(p, in)
	return capLine(p, event, in)
}

// eventName is the event in Claude Code's vocabulary, set in p.
func eventName(p map[string]any, in Input) string {
	event, _ := p["hook_event_name"].(string)
	if event == "" {
		event = in.Event
	}
	if in.Parsed != nil && !in.Parsed.Script { // a script's payload is in the app's words (ScriptPayload)
		event = AppName(*in.Parsed)
	}
	event = strings.ToValidUTF8(event, "\uFFFD")
	if event != "" {
		p["hook_event_name"] = event
	}
	return event
}

// addContext adds to p what the app reads beside the payload (the agent's
// tag, the terminal, the aliases of the agent's field names, the kind, the
// time) and drops the big fields it does not read.
func addContext(p map[string]any, in Input) {
	if _, tagged := p["coucou_agent"]; !tagged {
		switch {
		case in.Agent != "":
			p["coucou_agent"] = in.Agent
		case getenv(in, "CLAUDE_CODE_ENTRYPOINT") == "claude-desktop":
			p["coucou_agent"] = "claude-desktop"
		}
	}
	for _, t := range terminal {
		if v := getenv(in, t.env); v != "" {
			setDefault(p, t.field, v)
		}
	}
	if _, set := p[TermEditor]; !set {
		if e := termEditor(in); e != "" {
			p[TermEditor] = e
		}
	}
	fillAliases(p, in)
	if in.Kind != "" {
		p["coucou_kind"] = in.Kind
	}
	if !in.Now.IsZero() {
		p[EventTime] = json.Number(strconv.FormatInt(in.Now.UnixMicro(), 10))
	}
	for _, f := range dropped {
		delete(p, f)
	}
	dropToolOutput(p, in)
	if ev := in.Parsed; ev != nil && (ev.Kind == agent.ToolEnd && !ev.OK || ev.Kind == agent.Interrupted && ev.Tool != "") {
		// A failed tool's error is its first line ("Exit code 3"), not the
		// output some agents add below it (Claude Code's stderr, Qwen Code's
		// whole report).
		if s, ok := p["error"].(string); ok {
			p["error"] = firstLine(s)
		}
	}
}

// capLine encodes p, every string capped, harder until the line fits the
// app's cap; event is returned as sent.
func capLine(p map[string]any, event string, in Input) (line []byte, _ string, ok bool) {
	tool := p["tool_name"]
	if in.Parsed != nil && in.Parsed.Tool != "" {
		tool = in.Parsed.Tool // canonical: Gemini's replace is an Edit
	}
	diffs := event == "PostToolUse" && (tool == agent.Edit || tool == agent.MultiEdit || tool == agent.Write)
	for limit, diffLimit := MaxField, MaxDiffField; ; limit, diffLimit = limit/4, diffLimit/4 {
		c := capper{field: limit, diff: diffLimit, diffBudget: min(MaxDiffTotal, 2*diffLimit)}
		q := c.object(p, diffs, "")
		if c.diffCut {
			q[diffTruncated] = true
		}
		line = encode(q)
		if len(line) <= MaxLine || limit < 16 {
			if e, ok := q["hook_event_name"].(string); ok {
				event = e // as sent: even a name is capped
			}
			return line, event, true
		}
		// Too many fields for the app's cap even so: cap harder.
	}
}

// dropToolOutput removes a tool's result (its output, the files it read)
// wherever the agent keeps it: the app is promised none. The agent is the
// dialect's that read the payload, else the one --agent names (a name no
// dialect has: Claude Code's shape).
func dropToolOutput(p map[string]any, in Input) {
	a := agent.Agent(in.Agent)
	if in.Parsed != nil {
		a = in.Parsed.Agent
	}
	d, _ := agent.For(a)
	for _, path := range d.ToolOutput() {
		dropPath(p, strings.Split(path, "."))
	}
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// dropPath deletes the value at path, "#" standing for every element of
// an array.
func dropPath(v any, path []string) {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
		} else if len(path) > 1 {
			dropPath(x[path[0]], path[1:])
		}
	case []any:
		if len(path) > 1 && path[0] == "#" {
			for _, e := range x {
				dropPath(e, path[1:])
			}
		}
	}
}

func getenv(in Input, k string) string {
	if in.Getenv == nil {
		return ""
	}
	return in.Getenv(k)
}

// setDefault sets p[k] unless it holds a non-empty value.
func setDefault(p map[string]any, k string, v any) {
	if cur, ok := p[k]; ok && cur != nil && cur != "" {
		return
	}
	p[k] = v
}

// fillAliases fills, under Claude Code's names, what the dialect read from
// the agent's own fields; the payload's own value always wins.
func fillAliases(p map[string]any, in Input) {
	ev := in.Parsed
	if ev == nil {
		ev = &agent.Event{}
	}
	if ev.Session != "" {
		setDefault(p, "session_id", ev.Session)
	}
	if ev.Cwd != "" {
		setDefault(p, "cwd", ev.Cwd)
	} else if in.Getwd != nil {
		if wd, err := in.Getwd(); err == nil {
			setDefault(p, "cwd", wd)
		}
	}
	if ev.Tool != "" {
		setDefault(p, "tool_name", ev.Tool)
	}
	if _, ok := p["tool_input"].(map[string]any); !ok && len(ev.ToolInput) > 0 {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(ev.ToolInput))
		dec.UseNumber()
		if dec.Decode(&m) == nil && m != nil {
			p["tool_input"] = m
		}
	}
	if ev.Prompt != "" {
		if _, text := p["prompt"].(string); !text {
			// The app reads a string: a prompt of parts (Kimi Code's list)
			// gives way to the text the dialect read from it.
			delete(p, "prompt")
		}
		setDefault(p, "prompt", ev.Prompt)
	}
	if ev.Reason != "" && (ev.Kind == agent.Attention || ev.Kind == agent.Permission) && AppName(*ev) == "Notification" {
		setDefault(p, "notification_type", ev.Reason) // Grok Build's notificationType
	}
	if ev.Kind == agent.TurnEnd && ev.Message != "" {
		setDefault(p, "last_assistant_message", ev.Message)
	}
	if ev.Kind == agent.Error && ev.Error != "" {
		// What a failed turn's card says: the app reads a string, so an
		// agent's error object (Copilot's {message, name, stack}) gives way
		// to the message the dialect read from it.
		if s, ok := p["error"].(string); !ok || s == "" {
			p["error"] = ev.Error
		}
	}
}

// diffFields are the tool_input fields the app renders as a live diff.
var diffFields = map[string]bool{"old_string": true, "new_string": true, "content": true}

// capper bounds every string of a payload: field bytes each, except the
// rendered diff fields of an edit, diff bytes each and diffBudget in all.
type capper struct {
	field, diff, diffBudget int
	diffCut                 bool
}

func (c *capper) object(m map[string]any, diffs bool, path string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		p := path + "." + k
		if diffs && diffFields[k] && (path == ".tool_input" || strings.HasPrefix(path, ".tool_input.edits.")) {
			if s, ok := v.(string); ok {
				out[k] = c.diffString(s)
				continue
			}
		}
		out[k] = c.value(v, diffs, p)
	}
	return out
}

func (c *capper) value(v any, diffs bool, path string) any {
	switch x := v.(type) {
	case string:
		return capString(x, c.field)
	case map[string]any:
		return c.object(x, diffs, path)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = c.value(e, diffs, path+".")
		}
		return out
	}
	return v
}

func (c *capper) diffString(s string) string {
	limit := min(c.diff, c.diffBudget)
	if len(s) > limit {
		s = capString(s, limit)
		c.diffCut = true
	}
	c.diffBudget = max(0, c.diffBudget-len(s))
	return s
}

// capString cuts s to n bytes on a rune boundary and marks the cut.
func capString(s string, n int) string {
	if len(s) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	s = text.ClipBytes(s, n)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// encode writes JSON without HTML escaping (the app is not a browser).
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return []byte("{}")
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
