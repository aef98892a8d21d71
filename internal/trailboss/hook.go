package trailboss

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/text"
)

// Hook is trailboss-hook: any agent's hook events to the Trail Boss queue.
func Hook() hook.Binary {
	return hook.Binary{
		Name: Name,
		Help: `Put a coding agent's session in the Trail Boss queue while it waits on you.

Reads the hook JSON on stdin, of any agent below (Codex's notify JSON as the
last argument), and POSTs one normalized event to the Trail Boss daemon:

  session start             registered
  turn end, error           stuck (stopped), with the last assistant message
  permission request        stuck (permission), with the tool and its input
  prompt                    unstuck
  tool start or end         unstuck, when the session is stuck
  session end               ended

A session already stuck for the same reason is not sent again (it would lose
its place in the queue). Stuck and registered need the tmux pane (TMUX_PANE).
Events the daemon misses while it is down are replayed, in order, once it is
back (up to 256 events, 10 minutes old).

Always exits 0; prints nothing unless in dry-run (but {} on Copilot CLI's
permission hook, which fails closed without JSON).`,
		CLI:      &hookCLI{},
		Commands: install.Commands(hooks, Surface().Doctor),
		// The pane stays in the queue when the command ends: ended would
		// take it out again.
		Wrap: hook.Wrap{},
	}
}

type hookCLI struct {
	Args        []string         `arg:"" optional:"" help:"The event name, when the payload names none (Antigravity). Codex's notify program appends its JSON here."`
	Agent       string           `help:"The agent, when its payload does not say: ${dialects}."`
	AllowRemote bool             `name:"allow-remote" help:"Send to a Trail Boss URL whose host is not this machine."`
	Version     kong.VersionFlag `help:"Print the version."`
}

// QuickArgs takes what agents' settings hold without kong (hook.Quick).
func (c *hookCLI) QuickArgs(agentName string, positional []string) hook.Handler {
	*c = hookCLI{Agent: agentName, Args: positional}
	return c
}

// Time limits inside the runtime's deadline.
const (
	// lockBudget bounds the wait for a parallel hook of the same session.
	lockBudget = time.Second
	// staleAfter is when a session's state is assumed abandoned.
	staleAfter = 7 * 24 * time.Hour
)

func (c *hookCLI) Run(inv *hook.Invocation) error {
	ev := c.event(inv)
	act, ok := actions[ev.Kind]
	if !ok {
		if ev.Kind != agent.Unknown {
			inv.Skip("%s: no change in the Trail Boss queue", ev.Kind)
		}
		return nil
	}
	pane := inv.Getenv(EnvPane)
	if ev.Session == "" {
		// Not the pane: the daemon deletes a session named after a pane
		// (its bootstrap rows) when a real one stucks there.
		inv.Skip("%s not sent: no session id in the payload", act.typ)
		return nil
	}
	if needsPane(act.typ) && pane == "" {
		inv.Skip("%s not sent: not inside tmux (TMUX_PANE is unset), and Trail Boss routes by pane", act.typ)
		return nil
	}
	if noDaemonHere(inv.Getenv) {
		inv.Skip("%s not sent: Trail Boss has no Windows end (its daemon runs beside tmux), and neither %s nor %s names one", act.typ, EnvURL, EnvDaemonURL)
		return nil
	}
	endpoint, err := Endpoint(inv.Getenv, c.AllowRemote)
	if err != nil {
		return err
	}
	s := openState(inv, ev.Session)
	if act.ifStuck && !s.stuck(ev) {
		return nil // most tool calls: one failed open, and nothing else
	}
	if act.typ == Registered && s.store != nil {
		s.store.Tidy(staleAfter, time.Hour)
	}
	release := s.lock()
	defer release()
	e, send := wire(inv, ev, act, pane, s.reason())
	if !send {
		return nil
	}
	d := daemon{inv: inv, url: endpoint, allowRemote: c.AllowRemote, store: s.store}
	r := d.deliver(e)
	switch {
	case r == printed:
	case act.typ == Ended:
		s.forget() // the session is over, whatever the daemon says
	case r.landed() && act.typ == Stuck:
		s.set(act.reason)
	case r.landed() && act.typ == Unstuck:
		s.forget()
	}
	if r == refused {
		return errors.New("the daemon refused the event (see the notes)")
	}
	return nil
}

// event is the hook's event; when the payload names an event nobody knows
// (a new hook, garbage), the settings line's own argument says what it is.
func (c *hookCLI) event(inv *hook.Invocation) agent.Event {
	ev := inv.Event(c.Agent, c.Args)
	if len(c.Args) > 0 && agent.ArgKind(ev, c.Args[0]) != agent.Unknown {
		ev.Kind = agent.ArgKind(ev, c.Args[0])
		inv.Notef("taking the argument %q: %s", c.Args[0], ev.Kind)
		inv.Observe(ev)
	}
	return ev
}

// openState opens the session's state; without a state directory nothing
// is remembered.
func openState(inv *hook.Invocation, session string) sessionState {
	open := state.Open
	if inv.DryRun() {
		open = state.OpenReadOnly // a dry run changes nothing on disk
	}
	store, err := open(inv.Getenv, Name)
	if err != nil {
		inv.Notef("state: %v: no spool, and a repeated stuck is sent again", err)
		store = nil
	}
	return sessionState{inv: inv, store: store, name: state.Key(session) + ".stuck"}
}

// stuck says, before the lock, whether an event sent only for a stuck
// session may have one to send.
func (s sessionState) stuck(ev agent.Event) bool {
	if s.store == nil {
		s.inv.Skip("%s: whether the session is stuck is unknown without state: nothing sent", ev.Kind)
		return false
	}
	if s.reason() == "" {
		s.inv.Skip("%s: the session is not stuck: nothing to send", ev.Kind)
		return false
	}
	return true
}

// wire is the daemon's event for ev, given why the session is stuck (was);
// send is false when there is nothing to send.
func wire(inv *hook.Invocation, ev agent.Event, act action, pane, was string) (e Event, send bool) {
	e = Event{Type: act.typ, SessionID: ev.Session, Timestamp: now().UnixMilli()}
	if needsPane(act.typ) {
		e.PaneID, e.Cwd, e.TranscriptPath = pane, ev.Cwd, ev.Transcript
		if d, _ := agent.For(ev.Agent); d.HookRecords {
			// The daemon's reconcile reads a user record newer than a stuck
			// as the person answering; this agent writes one per hook.
			e.TranscriptPath = ""
		}
	}
	switch {
	case act.ifStuck && was == "":
		inv.Skip("%s: the session is no longer stuck: nothing to send", ev.Kind)
		return e, false
	case act.typ == Stuck && was == act.reason:
		inv.Skip("already stuck (%s): not sent again, which would move the session to the back of the queue", was)
		return e, false
	case act.typ == Stuck:
		e.Reason, e.Message = act.reason, message(ev)
	}
	return e, true
}

// message is a stuck event's text.
func message(ev agent.Event) string {
	switch ev.Kind {
	case agent.Permission:
		if len(ev.ToolInput) == 0 && strings.TrimSpace(ev.Message) != "" {
			// A notification that says what it asks only in words (Copilot's
			// permission_prompt, Claude's): the words say more than a tool
			// name alone.
			return PermissionMessage("", nil) + " " + clipJS(text.OneLine(ev.Message), inputLimit)
		}
		return PermissionMessage(ev.Tool, ev.ToolInput)
	case agent.Error:
		return ErrorMessage(ev)
	}
	// An agent whose turn end may lack its answer reads it from its
	// transcript (Dialect.Answer): Parse has.
	return StoppedMessage(ev.Message)
}

// sessionState is what the hook remembers of one session between calls:
// whether it is stuck, and why. It keeps the queue still: a second stuck
// for the same reason would move the session to the back of the FIFO.
type sessionState struct {
	inv   *hook.Invocation
	store *state.Store // nil: nothing is remembered
	name  string
}

// reason is why the session is stuck, or "".
func (s sessionState) reason() string {
	if s.store == nil {
		return ""
	}
	b, err := s.store.Read(s.name)
	if err != nil {
		s.inv.Notef("state: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// lock serializes the parallel hooks of one session (Claude Code runs the
// hooks of parallel tool calls at once). One that waits too long goes on
// without it: a delivery matters more than a repeated stuck.
func (s sessionState) lock() (release func()) {
	if s.store == nil {
		return func() {}
	}
	ctx, cancel := context.WithTimeout(s.inv.Context(), lockBudget)
	defer cancel()
	release, err := s.store.Lock(ctx, s.name)
	if err != nil {
		s.inv.Notef("another hook of this session held its state past %v: going on without it", lockBudget)
		return func() {}
	}
	return release
}

func (s sessionState) set(reason string) {
	if s.store != nil && !s.inv.DryRun() {
		if err := s.store.Write(s.name, []byte(reason+"\n")); err != nil {
			s.inv.Notef("state: %v", err)
		}
	}
}

func (s sessionState) forget() {
	if s.store != nil && !s.inv.DryRun() {
		if err := s.store.Remove(s.name); err != nil {
			s.inv.Notef("state: %v", err)
		}
	}
}
