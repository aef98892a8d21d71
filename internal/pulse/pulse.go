// Package pulse speaks the noctalia Pulse protocol: events dispatched with
// `noctalia msg plugin <target> all <event> [payload]` to the claude-companion
// plugin's pulse-svc aggregator, payload `model,in,out,cacheCreate,cacheRead,session[,pid]`.
package pulse

import (
	"strings"

	"github.com/hookwire/hookwire/internal/consent"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
)

// DefaultTarget is the plugin entry that aggregates Pulse events.
const DefaultTarget = "lowcache/claude-companion:pulse-svc"

// Environment variables.
const (
	EnvTarget = "PULSE_TARGET" // the plugin entry to dispatch to
	EnvPID    = "PULSE_PID"    // the agent's pid, sent as the 7th field when all digits
)

// Vocabulary is the set of events pulse-svc understands. It renders any other
// word as idle, keeping the word.
var Vocabulary = map[string]bool{
	"needs_attention": true, "error": true, "tool_start": true, "turn_start": true,
	"text": true, "turn_end": true, "idle": true, "session_end": true,
	// Newer pulse-svc control events.
	"consent_request": true, "presence": true,
}

// Target returns PULSE_TARGET, or the default when it is unset or empty.
func Target(getenv func(string) string) string {
	if t := getenv(EnvTarget); t != "" {
		return t
	}
	return DefaultTarget
}

// Dispatch is the noctalia command for one event, to the target getenv
// names (Target), written on noctalia's socket when it is there
// (socket.go). An empty payload sends a bare event (which lands in
// pulse-svc's shared default slot). On a machine without noctalia it can
// cross to a desktop (forward.go).
func Dispatch(getenv func(string) string, event, payload string) Request {
	args := []string{"plugin", Target(getenv), "all", event}
	if payload != "" {
		args = append(args, payload)
	}
	r := Msg(getenv, args...)
	r.Event, r.Payload = event, payload
	return r
}

// Msg is `noctalia msg ARGS…` (a panel's opening), written on noctalia's
// socket when it is there.
func Msg(getenv func(string) string, args ...string) Request {
	r := Request{Command: transport.Command{Argv: append([]string{"noctalia", "msg"}, args...)}}
	if sock := Socket(getenv); socketThere(sock) {
		r.Socket = sock // looked at once: Do, Summary and Absent go by it
	}
	return r
}

// Consent is the claude-companion consent panel's gate (internal/consent),
// its pokes sent as every Pulse event is.
func Consent(getenv func(string) string) consent.Gate {
	return consent.Gate{
		Msg:  func(args ...string) consent.Noctalia { return Msg(getenv, args...) },
		Poke: func(payload string) consent.Noctalia { return Dispatch(getenv, consent.RequestEvent, payload) },
	}
}

// Field cleans one CSV field the way the reference emitter does
// (`tr -cd 'A-Za-z0-9._?-'`): commas and whitespace cannot survive, since
// noctalia joins its argv with spaces and pulse-svc splits on commas.
func Field(s string) string { return text.Keep(s, text.Token) }

// CSV joins already-chosen field values, each cleaned.
func CSV(fields ...string) string {
	for i, f := range fields {
		fields[i] = Field(f)
	}
	return strings.Join(fields, ",")
}

// PID returns PULSE_PID when it is all digits, else "".
func PID(getenv func(string) string) string {
	p := getenv(EnvPID)
	if p == "" || strings.Trim(p, "0123456789") != "" {
		return ""
	}
	return p
}
