package consent

import (
	"os"

	"github.com/hookwire/hookwire/internal/agent"
)

// Where the panel asks. consent.py is Claude Code's PreToolUse hook for
// Bash, Write, Edit and NotebookEdit: before Claude Code decides, so that
// enforce blocks whatever is not allowlisted. For every agent the panel
// asks at the same point when the agent's hooks can answer it there, and
// else where the agent asks a person:
//
//   - a tool start (PreToolUse) of Bash, Write, Edit or NotebookEdit, for an
//     agent that reads both an allow and a denial from that hook (Claude
//     Code, Factory Droid, Auggie);
//   - a permission request, for an agent whose dialect Approves it and that
//     has no such tool start (Codex, Qwen Code, and the plugins' agents
//     that read an answer): Claude Code's own PermissionRequest is not
//     asked, since its PreToolUse was;
//   - a review, the hook asked about a tool before it runs (Copilot CLI's
//     permissionRequest), for an agent whose dialect Approves it.
//
// An agent that reads only a denial (Kimi Code, Cline: an allow is their
// silence, which is also "no decision") is not asked: the panel's allow
// could not reach it.

// gatedTools are consent.py's matcher: ^(Bash|Write|Edit|NotebookEdit)$.
var gatedTools = map[string]bool{agent.Bash: true, agent.Write: true, agent.Edit: true, agent.NotebookEdit: true}

// Decides reports whether pulse-claude may answer ev with the panel's
// decision: the panel asks about it, and its mode is enforce. Otherwise
// no reply of pulse-claude's decides anything, and hookwire need not wait
// for its delivery (hook's courier.go). Only an event the panel could ask
// about costs the mode's read.
func Decides(ev agent.Event) bool {
	return Asks(ev) && ModeOf(os.Getenv) == Enforce
}

// Asks reports whether the panel asks about ev when its mode is enforce.
func Asks(ev agent.Event) bool {
	d, _ := agent.For(ev.Agent)
	switch ev.Kind {
	case agent.ToolStart:
		return gatedTools[ev.Tool] && decides(d, ev.Name)
	case agent.Permission:
		return approves(d, ev) && !gatesBefore(d)
	case agent.Review:
		return approves(d, ev)
	}
	return false
}

// AsksAt reports whether the panel may ask on the agent's event name: the
// hooks install gives the approval timeout (Timeout).
func AsksAt(d *agent.Dialect, name string) bool {
	k, known := d.KindOf(name)
	switch {
	case !known:
		return false
	case k == agent.ToolStart:
		return decides(d, name)
	case k == agent.Permission:
		return d.Approves != nil && !gatesBefore(d)
	case k == agent.Review:
		return d.Approves != nil
	}
	return false
}

// Covers reports whether an approval of ev belongs to the panel: it asks
// about ev, or ev is the permission request of an agent it asked before
// (Claude Code's, after its PreToolUse). While the mode is enforce, such
// an approval is the panel's alone (Takes).
func Covers(ev agent.Event) bool {
	if Asks(ev) {
		return true
	}
	d, _ := agent.For(ev.Agent)
	return ev.Kind == agent.Permission && approves(d, ev) && gatesBefore(d)
}

// Takes reports that the panel, in enforce, is where ev's approval is
// asked, so that another surface (Coucou) does not ask it too: one
// approval asks one place. A call the panel lets through unasked (the
// allowlist's, or in a mode that says not to ask) is not the panel's: the
// agent asks its own way, Coucou's card included. It costs one open on
// approvals, and a read of the allowlist under enforce.
func Takes(getenv func(string) string, ev agent.Event) bool {
	if !Covers(ev) || ModeOf(getenv) != Enforce || silentModes[ev.Get("permission_mode").Str] {
		return false
	}
	r, _, ok := NewRequest(ev, "")
	return ok && !Allowed(getenv, r.Key)
}

// decides: the agent reads both an allow and a denial from its hook for
// this event, each unlike what it reads after any hook (Gemini CLI's {}).
func decides(d *agent.Dialect, name string) bool {
	if d.Reply == nil {
		return false
	}
	none := d.Reply(name, agent.Reply{})
	allow, deny := d.Reply(name, agent.Reply{Decision: agent.Allow}), d.Reply(name, agent.Reply{Decision: agent.Deny})
	return allow != "" && allow != none && deny != "" && deny != none
}

func approves(d *agent.Dialect, ev agent.Event) bool {
	return d.Approves != nil && d.Approves(ev) && d.Reply != nil
}

// gatesBefore: the agent has a tool start the panel asks on.
func gatesBefore(d *agent.Dialect) bool {
	for _, n := range d.Events {
		if n.Kind == agent.ToolStart && decides(d, n.Name) {
			return true
		}
	}
	return false
}
