package pulse

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transcript"
)

// Claude is pulse-claude: agent hooks (Claude Code first) to Pulse events,
// with the session's exact, lifetime-cumulative token burn read from the
// transcript. It keeps the reference adapter's interface (hooks/pulse.py:
// `pulse-claude <event>` with hook JSON on stdin) and fixes its faults.
func Claude() hook.Binary {
	return hook.Binary{
		Name: "pulse-claude",
		Help: `Send a coding agent's hook event to the noctalia Pulse bar, with its token burn.

Reads the hook JSON on stdin. The Pulse event is the argument when given (as in
claude-companion's settings snippet), else it follows from the hook's event name.
Token figures are the session's exact lifetime totals from the Claude Code
transcript (subagents included), read incrementally; other agents send zeros.

Runs: noctalia msg plugin <target> all <event> model,in,out,cacheCreate,cacheRead,session[,pid]

Environment:
  PULSE_TARGET   plugin entry (default ` + DefaultTarget + `)
  PULSE_PID      the agent's pid (default: found from ~/.claude/sessions)
  PULSE_DRYRUN, NOCTALIA_PULSE_DRYRUN   print the command instead of running it
  PULSE_LOG      append one JSON line per run to this file

Always exits 0; prints nothing unless in dry-run.`,
		CLI:       &claudeCLI{},
		DryRunEnv: []string{"NOCTALIA_PULSE_DRYRUN"},
		Commands:  install.Commands(claudeHooks, noctaliaCheck),
		Wrap:      hook.Wrap{EndsSession: true},
	}
}

type claudeCLI struct {
	Event       string           `arg:"" optional:"" help:"Pulse event (idle, turn_start, tool_start, needs_attention, turn_end, error, session_end, text)."`
	Rest        []string         `arg:"" optional:"" hidden:""` // Codex notify appends its JSON
	Agent       string           `help:"The agent, when its payload does not say (gemini, codex, antigravity, cursor, copilot)."`
	NoSubagents bool             `name:"no-subagents" help:"Count the main conversation's tokens only."`
	Version     kong.VersionFlag `help:"Print the version."`
}

// Kinds to Pulse events: ARCHITECTURE.md's Pulse column. Kinds absent here
// (subagent lifecycle, unknown events) send nothing.
var pulseEvents = map[agent.Kind]string{
	agent.SessionStart: "idle",
	agent.Prompt:       "turn_start",
	agent.Thinking:     "turn_start",
	agent.ToolStart:    "tool_start",
	agent.ToolEnd:      "turn_start",
	agent.Permission:   "needs_attention",
	agent.Attention:    "needs_attention",
	agent.TurnEnd:      "turn_end",
	agent.Interrupted:  "turn_end",
	agent.Error:        "error",
	agent.Compact:      "turn_start",
	agent.Text:         "text",
	agent.SessionEnd:   "session_end",
}

// mainOnly suffixes the state of a session counted without its subagents.
const mainOnly = ".main"

// Time limits inside the runtime's deadline.
const (
	// scanBudget bounds one call's transcript reading. A cold first scan of
	// a huge transcript goes on in the next calls instead of delaying a tool.
	scanBudget = 250 * time.Millisecond
	// settleBudget bounds the wait, on a turn end, for the final message
	// that Claude Code may not have flushed yet.
	settleBudget = 500 * time.Millisecond
	// lockBudget bounds the wait for a parallel hook of the same session.
	lockBudget = time.Second
	// staleAfter is when a session's state is assumed abandoned.
	staleAfter = 7 * 24 * time.Hour
)

func (c *claudeCLI) Run(inv *hook.Invocation) error {
	args, event := c.split()
	ev := inv.Event(c.Agent, args)
	if event == "" {
		event = pulseEvents[ev.Kind]
		if event == "" {
			inv.Skip("%s: nothing to show on the bar for this event", kindName(ev))
			return nil
		}
	} else if !Vocabulary[event] {
		// An agent event name where a Pulse event belongs: the dialect has
		// read it (with the payload's refinements), so map its kind.
		if mapped := pulseEvents[ev.Kind]; mapped != "" {
			inv.Notef("argument %q is an agent event, not a Pulse event: sending %s", event, mapped)
			event = mapped
		} else if agent.Lookup(event) != agent.Unknown {
			// An agent event its dialect maps to nothing (Copilot's
			// permissionRequest asks the hooks about every tool, not a person).
			inv.Skip("%s: nothing to show on the bar for this event", event)
			return nil
		} else {
			inv.Notef("event %q is not in the Pulse vocabulary: the bar shows it as idle", event)
		}
	}
	if event == "session_end" && ev.Kind != agent.SessionEnd {
		ev.Kind = agent.SessionEnd // the argument says so: the session-end budget applies
		inv.Observe(ev)
	}
	if ev.Session == "" {
		inv.Send(Dispatch(Target(inv.Getenv), event, ""))
		return nil
	}

	store, err := state.Open(inv.Getenv, "pulse-claude")
	if err != nil {
		inv.Notef("state: %v: token figures start from zero on every call", err)
	}
	name := state.Key(ev.Session)
	if event == "session_end" {
		// Like the reference: a retired slot needs no figures. The state goes.
		if store != nil {
			for _, n := range []string{name, name + mainOnly} {
				store.Remove(n + ".scan")
				store.Remove(n + ".ids")
			}
		}
		inv.Send(Dispatch(Target(inv.Getenv), event, CSV("?", "0", "0", "0", "0", slot(ev))))
		return nil
	}

	if c.NoSubagents {
		name += mainOnly // other totals: another state
	}
	s := c.burn(inv, store, name, ev)
	model := s.Model
	if model == "" {
		model = s.StartModel
	}
	if model == "" {
		model = ev.Model
	}
	model = strings.ReplaceAll(model, "claude-", "")
	if model == "" {
		model = "?"
	}
	t := s.Totals
	payload := CSV(model, itoa(t.In), itoa(t.Out), itoa(t.CacheCreate), itoa(t.CacheRead), slot(ev))
	if pid := PID(inv.Getenv); pid != "" {
		payload += "," + pid
	} else if s.PID > 0 {
		payload += "," + strconv.Itoa(s.PID)
	}
	inv.Send(Dispatch(Target(inv.Getenv), event, payload))
	return nil
}

// split separates the Pulse event argument from what the agent passed: a
// Codex notify payload (JSON, appended as the last argument) or an agent
// event name given where a Pulse event was expected.
func (c *claudeCLI) split() (args []string, event string) {
	all := append([]string{c.Event}, c.Rest...)
	if c.Event == "" {
		all = c.Rest
	}
	if len(all) > 0 && !strings.HasPrefix(strings.TrimSpace(all[0]), "{") {
		event = all[0]
		if !Vocabulary[event] {
			args = all // an agent event name: let the dialect read it too
		}
		all = all[1:]
	}
	return append(args, all...), event
}

// burn brings the session's scan up to date under its lock and returns it.
// Whatever goes wrong, it returns what is known: the last saved totals, or
// zeros.
func (c *claudeCLI) burn(inv *hook.Invocation, store *state.Store, name string, ev agent.Event) *transcript.Session {
	s := &transcript.Session{}
	if store == nil {
		if ev.Agent == agent.Claude && ev.Transcript != "" {
			s.Scan(ev.Transcript, transcript.Options{Subagents: !c.NoSubagents, Deadline: time.Now().Add(scanBudget)})
		}
		return s
	}
	if ev.Kind == agent.SessionStart {
		store.GC(staleAfter)
	}
	ctx, cancel := contextWithin(inv, lockBudget)
	defer cancel()
	release, err := store.Lock(ctx, name+".scan")
	if err != nil {
		inv.Notef("another hook of this session held its state past %v: sending the last saved totals", lockBudget)
		load(store, name, s)
		return s
	}
	defer release()
	load(store, name, s)

	if ev.Kind == agent.SessionStart && ev.Model != "" {
		s.StartModel = ev.Model
	}
	if ev.Agent == agent.Claude && ev.Transcript != "" {
		set, err := transcript.OpenIDSet(filepath.Join(store.Dir(), name+".ids"), s)
		if err != nil {
			inv.Notef("state: %v: sending the last saved totals", err)
			return s
		}
		c.scan(inv, s, ev)
		if err := set.Close(); err != nil {
			inv.Notef("state: %v", err)
		}
	}
	if s.PID == 0 || !ownsSession(claudeConfigDir(inv.Getenv), s.PID, ev.Session) {
		s.PID = 0
		if dir := claudeConfigDir(inv.Getenv); dir != "" && PID(inv.Getenv) == "" {
			s.PID = claudePID(ev.Session, dir)
		}
	}
	if b, err := s.MarshalBinary(); err == nil {
		if err := store.Write(name+".scan", b); err != nil {
			inv.Notef("state: saving: %v", err)
		}
	}
	return s
}

// scan reads the transcript's new lines. On a turn end it waits, briefly,
// for the final message that Claude Code may fire Stop before flushing, so
// that the totals shown while the session rests include the last turn.
func (c *claudeCLI) scan(inv *hook.Invocation, s *transcript.Session, ev agent.Event) {
	deadline := time.Now().Add(scanBudget)
	if dl, ok := inv.Context().Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	opt := transcript.Options{Subagents: !c.NoSubagents, Deadline: deadline, WantText: true}
	res, err := s.Scan(ev.Transcript, opt)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			inv.Notef("transcript: %v", err)
		}
		return
	}
	for _, p := range res.Rescanned {
		inv.Notef("transcript %s was rewritten: read again from the start", p)
	}
	if !res.Done {
		inv.Notef("transcript: read for %v and not finished: the next call goes on", scanBudget)
		return
	}
	if ev.Kind != agent.TurnEnd || strings.TrimSpace(ev.Message) == "" || s.Said(ev.Message) {
		return
	}
	settle := time.Now().Add(settleBudget)
	if dl, ok := inv.Context().Deadline(); ok && dl.Before(settle) {
		settle = dl
	}
	opt.Deadline = settle
	for !s.Said(ev.Message) {
		if time.Now().Add(20 * time.Millisecond).After(settle) {
			inv.Notef("transcript: the final message was not flushed within %v: totals may lag a turn", settleBudget)
			return
		}
		time.Sleep(20 * time.Millisecond)
		if _, err := s.Scan(ev.Transcript, opt); err != nil {
			return
		}
	}
}

// load reads the session's saved state; anything unreadable starts afresh.
func load(store *state.Store, name string, s *transcript.Session) {
	b, err := store.Read(name + ".scan")
	if err == nil && b != nil {
		s.UnmarshalBinary(b)
	}
}

// short is the session id's first dash-separated segment, as the reference
// adapter sends it: d63ac083 for d63ac083-c016-….
func short(session string) string {
	s, _, _ := strings.Cut(session, "-")
	return s
}

// slot is the session as the bar keys it: an agent's id shortened as the
// reference adapter does, a script's (a CI job, a pane: "github.4711.build")
// whole, since its first part alone would put every job in one slot.
func slot(ev agent.Event) string {
	if ev.Script {
		return ev.Session
	}
	return short(ev.Session)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func kindName(ev agent.Event) string {
	if ev.Kind == agent.Unknown {
		return "event " + strconv.Quote(ev.Name)
	}
	return string(ev.Kind)
}

// contextWithin is the invocation's context, cut to d from now.
func contextWithin(inv *hook.Invocation, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(inv.Context(), d)
}
