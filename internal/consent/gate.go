package consent

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/transport"
)

// By names the panel in the agent's reply ("Denied from the Noctalia
// consent panel").
const By = "the Noctalia consent panel"

// silentModes: the person told the agent not to ask (consent.py's
// SILENT_MODES); the gate is not entitled to overrule that.
var silentModes = map[string]bool{"bypassPermissions": true, "dontAsk": true}

// Noctalia is a `noctalia msg` delivery (pulse.Request): Absent when
// noctalia is neither on PATH nor listening here.
type Noctalia interface {
	transport.Request
	Absent() bool
}

// Gate is the panel's part in one hook: what it needs of noctalia.
type Gate struct {
	// Msg is `noctalia msg ARGS…`, as Pulse delivers it.
	Msg func(args ...string) Noctalia
	// Poke is `noctalia msg plugin <pulse-svc> all consent_request ID,SHORT`.
	Poke func(payload string) Noctalia
}

// Ask is the panel's gate for ev, whose Pulse slot is short: off, it
// costs one open; learn records the call; enforce asks the panel and
// prints the answer in the agent's own words. No answer prints nothing,
// and the agent asks its own way.
func (g Gate) Ask(inv *hook.Invocation, ev agent.Event, short string) {
	if !Asks(ev) {
		return
	}
	mode := ModeOf(inv.Getenv)
	if mode == Off {
		return
	}
	if pm := ev.Get("permission_mode").Str; silentModes[pm] {
		inv.Notef("consent: permission mode %s: the panel is not asked", pm)
		return
	}
	r, input, ok := NewRequest(ev, short)
	if !ok {
		inv.Notef("consent: the tool's input is not an object: the panel is not asked")
		return
	}
	if Allowed(inv.Getenv, r.Key) {
		inv.Notef("consent: %s is allowlisted: the panel is not asked", r.Tool)
		return
	}
	dir := Dir(inv.Getenv)
	if mode == Learn {
		row := LearnRow(r.Tool, r.Key, input.Get(agent.ArgDescription), time.Now())
		if inv.DryRun() {
			inv.Reply([]byte("append " + filepath.Join(dir, "learn.jsonl") + " " + row))
			return
		}
		if err := learn(dir, row, r.Key); err != nil {
			inv.Notef("consent: learn: %v", err)
		}
		return
	}
	if d := g.decide(inv, dir, r); d != agent.None {
		g.reply(inv, ev, d)
	}
}

// NewRequest is the request for ev, whose Pulse slot is short (a new id
// when the call has none, a new nonce), and the tool's input; ok is false
// when the input is not an object.
func NewRequest(ev agent.Event, short string) (r Request, input gjson.Result, ok bool) {
	tool, key, input, ok := keyed(ev)
	if !ok {
		return r, input, false
	}
	r = Request{ID: RequestID(ev.ToolUseID), Nonce: Nonce(), Tool: tool, Key: key,
		Command: input.Get(agent.ArgCommand), Path: pathOf(input), Description: input.Get(agent.ArgDescription),
		Cwd: ev.Get("cwd"), Session: short}
	if !r.Cwd.Exists() && ev.Cwd != "" {
		r.Cwd = stringValue(ev.Cwd)
	}
	return r, input, true
}

// decide writes the request, pokes the panel and waits for its answer.
func (g Gate) decide(inv *hook.Invocation, dir string, r Request) agent.Decision {
	poke := g.Poke(r.ID + "," + r.Session)
	if poke.Absent() {
		// The request's files are on this machine: a desktop's panel
		// across a relay could not read them.
		inv.Notef("consent: noctalia is not here: the panel is not asked")
		return agent.None
	}
	open := g.Msg("panel-open", Panel, r.ID)
	if inv.DryRun() {
		inv.Reply([]byte("write " + filepath.Join(dir, "consent", r.ID+".req") + " " + string(r.JSON()) + "\n"))
		inv.Send(poke)
		inv.Send(open)
		return agent.None
	}
	cdir, err := requestDir(dir)
	if err != nil {
		inv.Notef("consent: %v: the panel is not asked", err)
		return agent.None
	}
	req, res := filepath.Join(cdir, r.ID+".req"), filepath.Join(cdir, r.ID+".res")
	os.Remove(res) // a killed hook's, which would end this wait at once
	if err := writeRequest(req, r); err != nil {
		inv.Notef("consent: %v: the panel is not asked", err)
		return agent.None
	}
	defer os.Remove(req)
	inv.AwaitHuman(Hold)
	if _, err := inv.Send(transport.Within(poke, Poke)); err != nil {
		// Nothing can be holding a panel open for it: no wait.
		inv.Notef("consent: the panel was not told (%v): no decision", err)
		return agent.None
	}
	inv.Send(transport.Within(open, Poke)) // the panel can still be opened by hand
	defer os.Remove(res)
	ctx := inv.Context()
	for deadline := time.Now().Add(Wait); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(poll) {
		a := readAnswer(res, r.Nonce)
		if !a.read {
			continue
		}
		if a.decision == "" {
			inv.Notef("consent: %s: no decision", a.why)
			return agent.None
		}
		return agent.Decision(a.decision)
	}
	inv.Notef("consent: no answer from the panel within %v: no decision", Wait)
	return agent.None
}

func (g Gate) reply(inv *hook.Invocation, ev agent.Event, d agent.Decision) {
	dl, _ := agent.For(ev.Agent)
	if dl.Reply == nil {
		return
	}
	if r := dl.Reply(ev.Name, agent.Reply{Decision: d, By: By}); r != "" {
		inv.Reply([]byte(r + "\n"))
	}
}

// stringValue is s as a JSON string value.
func stringValue(s string) gjson.Result {
	return gjson.Result{Type: gjson.String, Str: s, Raw: strconv.Quote(s)}
}
