// Package trailboss speaks to the Trail Boss daemon (jedarden/trail-boss): a
// loopback HTTP service that keeps a FIFO of tmux panes whose agent waits on
// the human. Events are POSTed, one per request, to /event/normalized:
//
//	stuck:      {type, sessionId, paneId, cwd, transcriptPath, reason, message, timestamp}
//	unstuck:    {type, sessionId, timestamp}
//	registered: {type, sessionId, paneId, cwd, transcriptPath, timestamp}
//	ended:      {type, sessionId, timestamp}
//
// The daemon's HTTP layer checks only the type (its contract document says
// each type's fields are validated; its code, which is followed here, does
// not, and words the error "Missing or invalid event type"). Its SQLite
// schema is stricter (pane, cwd and transcript path are NOT NULL, so a stuck
// or registered event missing one fails with a 500), so every field is
// always sent as a string, "" when unknown. timestamp is Unix milliseconds: the
// daemon's reconcile loop compares it with the transcript's ISO times, and a
// time in seconds would be dequeued within 5 s.
package trailboss

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// Name is the binary, and its corner of the state directory.
const Name = "trailboss-hook"

// Where the daemon is. The daemon's port is hard-coded upstream; the
// variables are the names its own clients read.
const (
	EnvURL       = "TRAILBOSS_URL"        // base URL, as bin/trailboss* read it
	EnvDaemonURL = "TRAILBOSS_DAEMON_URL" // the full endpoint, as the tmux detector reads it
	EnvPane      = "TMUX_PANE"

	DefaultURL = "http://127.0.0.1:4000"
	EventPath  = "/event/normalized"
)

// The normalized event types.
const (
	Stuck      = "stuck"
	Unstuck    = "unstuck"
	Registered = "registered"
	Ended      = "ended"
)

// The stuck reasons. They are display-only for the daemon.
const (
	ReasonStopped    = "stopped"
	ReasonPermission = "permission"
)

// Event is one normalized event.
type Event struct {
	Type           string
	SessionID      string
	PaneID         string
	Cwd            string
	TranscriptPath string
	Reason         string
	Message        string
	Timestamp      int64 // Unix milliseconds
}

// Encode writes exactly the fields of the event's type, in the order of the
// daemon's types.ts, every string present. Characters are not HTML-escaped,
// as JavaScript's JSON.stringify does not escape them (and so it is not a
// MarshalJSON, whose output encoding/json would escape).
func (e Event) Encode() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	field := func(sep, key, value string) {
		b.WriteString(sep + `"` + key + `":`)
		enc.Encode(value) // a string always encodes
		b.Truncate(b.Len() - 1)
	}
	field("{", "type", e.Type)
	field(",", "sessionId", e.SessionID)
	if e.Type == Stuck || e.Type == Registered {
		field(",", "paneId", e.PaneID)
		field(",", "cwd", e.Cwd)
		field(",", "transcriptPath", e.TranscriptPath)
	}
	if e.Type == Stuck {
		field(",", "reason", e.Reason)
		field(",", "message", e.Message)
	}
	b.WriteString(`,"timestamp":` + strconv.FormatInt(e.Timestamp, 10) + "}")
	return b.Bytes()
}

// needsPane: the daemon routes a stuck session to its pane, and registers a
// session with its pane; without one it cannot do anything useful with
// either, so they are not sent (as the upstream hook script does).
func needsPane(typ string) bool { return typ == Stuck || typ == Registered }

// action is what a canonical kind means for the queue.
type action struct {
	typ    string
	reason string
	// ifStuck sends the event only when the session is stuck: a tool
	// starting or ending after an approval is the session moving again.
	ifStuck bool
}

// actions is ARCHITECTURE.md's Trail Boss column. Kinds absent here send
// nothing: an idle prompt (attention) is not a block in Trail Boss's model
// (upstream dropped Notification), an interrupt is followed by a prompt,
// and the rest is activity, not waiting.
var actions = map[agent.Kind]action{
	agent.SessionStart: {typ: Registered},
	agent.Prompt:       {typ: Unstuck},
	agent.ToolStart:    {typ: Unstuck, ifStuck: true},
	agent.ToolEnd:      {typ: Unstuck, ifStuck: true},
	agent.Permission:   {typ: Stuck, reason: ReasonPermission},
	agent.TurnEnd:      {typ: Stuck, reason: ReasonStopped},
	agent.Error:        {typ: Stuck, reason: ReasonStopped},
	agent.SessionEnd:   {typ: Ended},
}

// Message bounds.
const (
	// inputLimit is upstream's formatToolInput bound: the tool input's JSON
	// kept whole up to 100 characters, else 97 and "...".
	inputLimit = 100
	// messageLimit bounds a last assistant message or an error. Upstream
	// sends the message whole; a final answer can be many KiB, and the
	// queue shows a line of it.
	messageLimit = 1000
)

// NoMessage is upstream's text for a turn end without a message.
const NoMessage = "[no message]"

// PermissionMessage is upstream's adapter text: "[Tool] " and the tool
// input's compact JSON, clipped; "[permission request]" without a tool. A
// tool without input reads "[Tool] ", trailing space included, as upstream.
func PermissionMessage(tool string, input json.RawMessage) string {
	if tool == "" {
		return "[permission request]"
	}
	var in string
	if len(input) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, input) == nil {
			in = clipJS(text.RedactFor(b.String(), inputLimit), inputLimit)
		}
	}
	return "[" + clipJS(text.OneLine(tool), inputLimit) + "] " + in
}

// StoppedMessage is the last assistant message, bounded; NoMessage when blank.
func StoppedMessage(msg string) string {
	if strings.TrimSpace(msg) == "" {
		return NoMessage
	}
	return clipJS(text.RedactFor(msg, messageLimit), messageLimit)
}

// ErrorMessage names the error a turn ended on: "[error] rate_limit: API
// Error: 429 …", on one line.
func ErrorMessage(ev agent.Event) string {
	detail := ev.Error
	if detail == "" {
		detail = ev.Message // Claude's StopFailure carries the API error as the last message
	}
	var parts []string
	if t := text.OneLine(ev.ErrorType); t != "" {
		parts = append(parts, t)
	}
	if d := text.OneLine(detail); d != "" && !strings.EqualFold(d, ev.ErrorType) {
		parts = append(parts, d)
	}
	if len(parts) == 0 {
		parts = []string{"the turn failed"}
	}
	return clipJS(text.RedactFor("[error] "+strings.Join(parts, ": "), messageLimit), messageLimit)
}

// clipJS is upstream's `s.length <= n ? s : s.slice(0, n-3) + "..."`, with
// lengths in UTF-16 code units as JavaScript counts them, except that a
// character is never cut in half (JavaScript would leave half a surrogate
// pair, which JSON cannot carry as UTF-8).
func clipJS(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	units := 0
	cut := -1
	for i, r := range s {
		w := utf16.RuneLen(r)
		if units+w > n-3 && cut < 0 {
			cut = i
		}
		units += w
		if units > n {
			return s[:cut] + "..."
		}
	}
	return s
}
