package pulse

import (
	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
)

// Emit is pulse-emit: the generic emitter for shell scripts, CI jobs and any
// agent without a dedicated adapter. It is byte-compatible with the reference
// POSIX emitter (hooks/pulse-emit in claude-companion).
func Emit() hook.Binary {
	return hook.Binary{
		Name: "pulse-emit",
		Help: `Send one event to the noctalia Pulse bar.

Runs: noctalia msg plugin <target> all <event> [model,in,out,cacheCreate,cacheRead,session[,pid]]
The payload is sent only with a session; fields are cleaned to [A-Za-z0-9._?-].
Events: idle turn_start tool_start text needs_attention turn_end error session_end.

Always exits 0; prints nothing unless PULSE_DRYRUN is set.`,
		CLI:       &emitCLI{},
		NoAnswers: true, // a Pulse event has no text
		Commands:  install.Commands(emitHooks, ClaudeSurface().Doctor),
		// A finished command's slot is retired, as an agent's is.
		Wrap: hook.Wrap{EndsSession: true},
	}
}

type emitCLI struct {
	Event       string   `arg:"" optional:"" default:"idle" help:"Pulse event."`
	Session     string   `arg:"" optional:"" help:"Session id; '-' reads session_id from hook JSON on stdin."`
	Model       string   `arg:"" optional:"" help:"Model name (default ?)."`
	In          string   `arg:"" optional:"" help:"Input tokens, lifetime total."`
	Out         string   `arg:"" optional:"" help:"Output tokens, lifetime total."`
	CacheCreate string   `arg:"" optional:"" name:"cache-create" help:"Cache-creation tokens, lifetime total."`
	CacheRead   string   `arg:"" optional:"" name:"cache-read" help:"Cache-read tokens, lifetime total."`
	Rest        []string `arg:"" optional:"" hidden:""` // ignored, as the reference emitter does

	Version kong.VersionFlag `help:"Print the version."`
}

func (c *emitCLI) Run(inv *hook.Invocation) error {
	if inv.Scripted() {
		return c.generic(inv)
	}
	event := or(c.Event, "idle")
	session := c.Session
	var dialect agent.Agent = agent.Generic
	if session == "-" {
		ev := inv.Payload("", nil)
		session, dialect = ev.Session, ev.Agent
		if session == "" {
			inv.Notef("session '-': no session id in the JSON on stdin: sending a bare event")
		}
	}
	inv.Observe(agent.Event{Agent: dialect, Name: event, Kind: agent.Lookup(event), Session: session})
	if !Vocabulary[event] {
		inv.Notef("event %q is not in the Pulse vocabulary: the bar shows it as idle", event)
	}

	var payload string
	if session != "" { // the reference tests the session before cleaning it
		payload = CSV(or(c.Model, "?"), or(c.In, "0"), or(c.Out, "0"),
			or(c.CacheCreate, "0"), or(c.CacheRead, "0"), session)
		if pid := PID(inv.Getenv); pid != "" {
			payload += "," + pid
		}
	}
	inv.Send(Dispatch(inv.Getenv, event, payload))
	return nil
}

// generic is the suite's shared script grammar (`pulse-emit turn_end
// --session build-42`): taken only when one of its flags is given, so that
// the reference form, `pulse-emit turn_end` with no session, still sends the
// bare event it always did, even in a CI job or a terminal that would name
// a session. A canonical kind is mapped as pulse-claude maps it; a Pulse
// event is sent as it is.
func (c *emitCLI) generic(inv *hook.Invocation) error {
	if c.Model+c.In+c.Out+c.CacheCreate+c.CacheRead != "" {
		inv.Notef("token figures are for the positional form (pulse-emit EVENT SESSION MODEL …), without the script flags: ignored")
	}
	ev := inv.Event("", []string{or(c.Event, "idle")})
	if c.Session != "" && c.Session != "-" && inv.ScriptFlags().Session == "" {
		ev.Session = c.Session // a positional session is as explicit as --session
		inv.Observe(ev)
	}
	event := c.Event
	if !Vocabulary[event] {
		event = pulseEvents[ev.Kind]
		if event == "" {
			inv.Skip("%s: nothing to show on the bar for this event", kindName(ev))
			return nil
		}
	}
	if event == "session_end" && ev.Kind != agent.SessionEnd {
		ev.Kind = agent.SessionEnd
		inv.Observe(ev)
	}
	var payload string
	if ev.Session != "" {
		payload = CSV("?", "0", "0", "0", "0", ev.Session)
		if pid := PID(inv.Getenv); pid != "" {
			payload += "," + pid
		}
	}
	inv.Send(Dispatch(inv.Getenv, event, payload))
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
