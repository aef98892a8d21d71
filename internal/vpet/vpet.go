// Package vpet speaks the VPet desktop pet's notify sink: one-way, local-only
// HTTP over a Unix domain socket with a bearer token, as agentica's
// notify/sink.py writes it (docs/reference/trailboss-vpet-coral.md §2).
//
// What the channel must not carry matters as much as what it carries: it
// reports run and tool status, never asks anything, never reads an answer
// back, and carries metadata plus what the user has already seen on screen
// (their prompt, the final answer, clipped), never tool output, file
// contents or history. The payload is a fixed struct, so a key that is not
// on the whitelist cannot reach the wire; a value that is not known is
// omitted, never invented.
package vpet

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// The sink's events (agentica RUN_EVENTS).
const (
	RunStarted    = "run.started"
	RunCompleted  = "run.completed"
	RunFailed     = "run.failed"
	RunCancelled  = "run.cancelled"
	ToolStarted   = "tool.started"
	ToolCompleted = "tool.completed"
)

// Events lists every event, in lifecycle order.
var Events = []string{RunStarted, RunCompleted, RunFailed, RunCancelled, ToolStarted, ToolCompleted}

// titles are payload.title's defaults (agentica setdefault), at most 40 chars.
var titles = map[string]string{
	RunStarted:    "run started",
	RunCompleted:  "run completed",
	RunFailed:     "run failed",
	RunCancelled:  "run cancelled",
	ToolStarted:   "tool started",
	ToolCompleted: "tool completed",
}

// Envelope is the body of POST /event. Field order is agentica's _envelope.
type Envelope struct {
	V          int       `json:"v"`
	Source     string    `json:"source"`
	SessionKey string    `json:"session_key"`
	Event      string    `json:"event"`
	TS         Seconds   `json:"ts"`
	Transport  Transport `json:"transport"`
	Payload    Payload   `json:"payload"`
}

// Transport says where the agent runs, so the pet can point at its terminal.
type Transport struct {
	PPID int    `json:"ppid"`
	Cwd  string `json:"cwd,omitempty"`
	TTY  string `json:"tty,omitempty"`
}

// Payload is the whitelist (agentica _run_event_payload, _completion_payload).
// Every key but title is optional: nil or empty means "not known", and the
// key is left out. Which keys each event may carry is in the per-event table
// of the reference; the builders in this package fill only those.
//
// agentica's notify-sink.md (its Chinese version) lists, in its security
// section, "title / tool / question / preview / options": those are the keys
// of the removed /await path. Where that text and the code differ, the code
// (sink.py at d3cee31, the newest notify-sink.md table) is followed:
// tool_name, not tool; no question or options, which this one-way channel
// never carries.
type Payload struct {
	Title           string   `json:"title"`
	AgentName       string   `json:"agent_name,omitempty"`
	ToolName        string   `json:"tool_name,omitempty"`
	ToolCallID      string   `json:"tool_call_id,omitempty"`
	Preview         string   `json:"preview,omitempty"`
	Prompt          string   `json:"prompt,omitempty"`
	Answer          string   `json:"answer,omitempty"`
	AnsweredAt      *Seconds `json:"answered_at,omitempty"`
	OK              *bool    `json:"ok,omitempty"`
	DurationSeconds *Seconds `json:"duration_seconds,omitempty"`
	HadResponse     *bool    `json:"had_response,omitempty"`
	Reason          string   `json:"reason,omitempty"`
	Error           string   `json:"error,omitempty"`
}

// Seconds is a time or a duration in seconds, written with millisecond
// precision: `1735689600.123`, as Python's time.time() reads on the wire.
type Seconds float64

// MarshalJSON writes the number with exactly three decimals.
func (s Seconds) MarshalJSON() ([]byte, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return strconv.AppendFloat(nil, f, 'f', 3, 64), nil
}

// Unix is t in Unix seconds.
func Unix(t time.Time) Seconds { return Seconds(float64(t.UnixNano()) / 1e9) }

func ptr[T any](v T) *T { return &v }

// TextLimit and clipping follow agentica notify/wire.py clip_text: strip,
// then at most 500 code points and a visible "…" when anything was cut, so
// that the pet can tell "that was all" from "and more". The pet is a bubble,
// not a reader.
const TextLimit = 500

// ClipText is clip_text: the text stripped, cut to TextLimit runes plus "…"
// when longer, or "" (key omitted) when nothing is left.
func ClipText(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= TextLimit {
		return s
	}
	n := 0
	for i := range s {
		if n == TextLimit {
			return s[:i] + text.Ellipsis
		}
		n++
	}
	return s
}

// Source is the envelope's source for an agent: the name the pet knows it
// by, its product id ("claude-code", "gemini-cli"). An agent given with
// --agent that names no dialect is its own source.
func Source(a agent.Agent) string {
	if d, ok := agent.For(a); ok {
		return d.ProductName()
	}
	return string(a)
}

// Encode is the request body: compact JSON, no trailing newline, and no
// HTML escaping (the pet shows "<" as typed).
func (e *Envelope) Encode() ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
