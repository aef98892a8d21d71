package pulse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/consent"
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
Token figures are the session's exact lifetime totals, read incrementally from
the agent's own file (Claude Code's transcript, subagents included; Codex's
rollout; the chats of Gemini CLI and Qwen Code; Copilot CLI's events; Factory
Droid's session totals); agents that keep none a hook can read send zeros.

Runs: noctalia msg plugin <target> all <event> model,in,out,cacheCreate,cacheRead,session[,pid]

With claude-companion's consent panel set to learn or enforce, it is also the
panel's gate (as the plugin's hooks/consent.py, for every agent that can be
asked): enforce holds an approval until the panel answers (up to 110s) and
prints the answer in the agent's words.

Always exits 0; prints nothing but the panel's answer, unless in dry-run.`,
		CLI:       &claudeCLI{},
		DryRunEnv: []string{"NOCTALIA_PULSE_DRYRUN"},
		NoAnswers: true, // the bar shows figures, never text; Copilot's file is the finisher's to wait for
		Commands:  install.Commands(claudeHooks, ClaudeSurface().Doctor),
		// The consent panel answers these (internal/consent).
		Decides: consent.Decides,
		Wrap:    hook.Wrap{EndsSession: true},
	}
}

type claudeCLI struct {
	Event       string   `arg:"" optional:"" help:"Pulse event (idle, turn_start, tool_start, needs_attention, turn_end, error, session_end, text)."`
	Rest        []string `arg:"" optional:"" hidden:""` // Codex notify appends its JSON
	Agent       string   `help:"The agent, when its payload does not say: ${dialects}."`
	NoSubagents bool     `name:"no-subagents" help:"Count the main conversation's tokens only."`
	// Approvals is nb-hook's flag, on the one hookwire line that serves it
	// and the consent panel on Copilot CLI's permissionRequest: nothing here.
	Approvals bool             `hidden:""`
	Version   kong.VersionFlag `help:"Print the version."`

	// wait makes a turn end wait here for the final message, when no
	// finisher can.
	wait bool
}

// QuickArgs takes what agents' settings hold without kong (hook.Quick).
func (c *claudeCLI) QuickArgs(agentName string, positional []string) hook.Handler {
	c.Event, c.Rest = hook.FirstRest(positional)
	c.Agent, c.NoSubagents, c.Approvals, c.Version = agentName, false, false, false
	return c
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

// finishing suffixes the token of a finisher that will send a turn end.
const finishing = ".finish"

// ended marks a session whose end came while a finisher waited to send its
// turn end: the finisher sends the session end after it (retire).
const ended = ".ended"

// Time limits inside the runtime's deadline.
const (
	// scanBudget bounds one call's transcript reading. A cold first scan of
	// a huge transcript goes on in the next calls instead of delaying a tool.
	scanBudget = 250 * time.Millisecond
	// settleBudget bounds the wait, on a turn end, for the final message
	// that Claude Code may not have flushed yet.
	settleBudget = 500 * time.Millisecond
	// finishBudget bounds a finisher's wait for the final message: it is
	// not on the agent's path, so it can wait out a loaded machine.
	finishBudget = time.Second
	// pollEvery is how often the transcript is read again while waiting.
	pollEvery = 20 * time.Millisecond
	// sendReserve is kept from a finisher's deadline for sending.
	sendReserve = 500 * time.Millisecond
	// lockBudget bounds the wait for a parallel hook of the same session.
	lockBudget = time.Second
	// staleAfter is when a session's state is assumed abandoned.
	staleAfter = 7 * 24 * time.Hour
)

func (c *claudeCLI) Run(inv *hook.Invocation) error {
	args, event := c.split()
	ev := inv.Event(c.Agent, args)
	if inv.Finishing() == "" {
		// After the bar is told of the event: the panel's gate, which may
		// hold the hook while a person answers.
		defer Consent(inv.Getenv).Ask(inv, ev, slot(ev))
	}
	event, ok := pulseEvent(inv, ev, event)
	if !ok {
		return nil
	}
	if event == "session_end" && ev.Kind != agent.SessionEnd {
		ev.Kind = agent.SessionEnd // the argument says so: the session-end budget applies
		inv.Observe(ev)
	}
	if ev.Session == "" {
		inv.Send(Dispatch(inv.Getenv, event, ""))
		return nil
	}

	open := state.Open
	if inv.DryRun() {
		open = state.OpenReadOnly // a dry run changes nothing on disk
	}
	store, err := open(inv.Getenv, "pulse-claude")
	if err != nil {
		inv.Notef("state: %v: token figures start from zero on every call", err)
	}
	name := state.Key(ev.Session)
	if event == "session_end" {
		c.retire(inv, store, name, ev)
		return nil
	}

	if c.NoSubagents {
		name += mainOnly // other totals: another state
	}
	if token := inv.Finishing(); token != "" {
		c.finish(inv, store, name, ev, event, token)
		return nil
	}
	s, token := c.burn(inv, store, name, ev)
	if token != "" {
		pid, err := inv.StartFinisher(token, store.Dir())
		if err == nil {
			inv.Notef("%s: the final message is not in the transcript yet: a finisher (pid %d) sends it with the totals once it is", event, pid)
			return nil
		}
		inv.Notef("finisher: %v: waiting here", err)
		c.wait = true
		s, _ = c.burn(inv, store, name, ev)
	}
	inv.Send(Dispatch(inv.Getenv, event, c.payload(inv, s, ev)))
	if ev.Final {
		// A one-shot run (codex exec) ends its session with its turn, and
		// tells of nothing after it: the slot retires now.
		c.retire(inv, store, state.Key(ev.Session), ev)
	}
	return nil
}

// pulseEvent is the Pulse event to send for ev, given the argument's
// (event, maybe ""); ok is false when the bar has nothing to show.
func pulseEvent(inv *hook.Invocation, ev agent.Event, event string) (_ string, ok bool) {
	switch {
	case event == "":
		event = pulseEvents[ev.Kind]
		if event == "" {
			inv.Skip("%s: nothing to show on the bar for this event", kindName(ev))
			return "", false
		}
	case Vocabulary[event]:
	case pulseEvents[ev.Kind] != "":
		// An agent event name where a Pulse event belongs: the dialect has
		// read it (with the payload's refinements), so map its kind.
		inv.Notef("argument %q is an agent event, not a Pulse event: sending %s", event, pulseEvents[ev.Kind])
		event = pulseEvents[ev.Kind]
	case agent.Lookup(event) != agent.Unknown:
		// An agent event its dialect maps to nothing (Copilot's
		// permissionRequest asks the hooks about every tool, not a person).
		inv.Skip("%s: nothing to show on the bar for this event", event)
		return "", false
	default:
		inv.Notef("event %q is not in the Pulse vocabulary: the bar shows it as idle", event)
	}
	return event, true
}

// payload is the Pulse payload for the session's state s.
func (c *claudeCLI) payload(inv *hook.Invocation, s *transcript.Session, ev agent.Event) string {
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
	t := s.Burn()
	payload := CSV(model, itoa(t.In), itoa(t.Out), itoa(t.CacheCreate), itoa(t.CacheRead), slot(ev))
	if pid := PID(inv.Getenv); pid != "" {
		payload += "," + pid
	} else if s.PID > 0 {
		payload += "," + strconv.Itoa(s.PID)
	}
	return payload
}

// retire sends session_end. Like the reference: a retired slot needs no
// figures. The state goes.
func (c *claudeCLI) retire(inv *hook.Invocation, store *state.Store, name string, ev agent.Event) {
	handed := false
	if store != nil {
		for _, n := range []string{name, name + mainOnly} {
			// Under the lock: a finisher sending the turn end sends it
			// before, or finds itself superseded; then the turn end goes
			// now, before the session end, with what the transcript holds
			// (`claude -p` ends its session right after the Stop, often
			// before the finisher has seen the final message; by now
			// Claude Code has written it).
			ctx, cancel := contextWithin(inv, lockBudget)
			release, err := store.Lock(ctx, n+".scan")
			cancel()
			b, _ := store.Read(n + finishing)
			if len(b) > 0 && err == nil && alive(string(b)) && inv.CanFinishLater() {
				// The finisher has time left: it sends the turn end once the
				// final message is written, then this session end. Nobody
				// waits for the file on the agent's path.
				if err := store.Write(n+ended, []byte(ev.Session)); err == nil {
					release()
					handed = true
					inv.Notef("a finisher waits to send the turn end: it sends the session end after it")
					continue
				}
			}
			if len(b) > 0 && err == nil {
				c.turnEnd(inv, store, n, ev, true)
			}
			store.Remove(n + finishing)
			store.Remove(n + ".scan")
			store.Remove(n + ".ids")
			store.Remove(n + ended)
			if err == nil {
				release()
			}
		}
	}
	if handed {
		return
	}
	inv.Send(Dispatch(inv.Getenv, "session_end", CSV("?", "0", "0", "0", "0", slot(ev))))
}

// alive reports whether the finisher of a token (the hook's pid and start,
// burn) has at least a second of its deadline left to send what it holds.
func alive(token string) bool {
	_, at, ok := strings.Cut(token, "-")
	n, err := strconv.ParseInt(at, 10, 64)
	return ok && err == nil && time.Now().Before(time.Unix(0, n).Add(hook.Budget-time.Second))
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
// zeros. On a turn end whose final message is not in the transcript yet, it
// waits for it (c.wait, or no finisher possible here), or returns the token
// of a finisher to start: saved with the state, it lets the finisher send
// the turn end unless a later hook of the session removes it first.
func (c *claudeCLI) burn(inv *hook.Invocation, store *state.Store, name string, ev agent.Event) (s *transcript.Session, token string) {
	s = &transcript.Session{}
	if store == nil {
		if path, format := transcriptOf(ev, inv.Getenv); path != "" {
			s.Scan(path, transcript.Options{Format: format, Session: ev.Session, Subagents: !c.NoSubagents, Deadline: time.Now().Add(scanBudget)})
		} else if format.Carried() {
			s.Carried(ev.Raw, format, !c.NoSubagents)
		}
		return s, ""
	}
	if ev.Kind == agent.SessionStart {
		store.Tidy(staleAfter, time.Hour)
	}
	ctx, cancel := contextWithin(inv, lockBudget)
	defer cancel()
	release, err := store.Lock(ctx, name+".scan")
	if err != nil {
		inv.Notef("another hook of this session held its state past %v: sending the last saved totals", lockBudget)
		load(store, name, s)
		return s, ""
	}
	defer release()
	// This event is newer than a turn end that a finisher may still be
	// waiting to send: that one must not follow it to the bar, and must not
	// be lost either (the next turn can start before Claude Code has written
	// the last one's final message: a subagent's result, a queued prompt).
	// It goes now, first, with what the transcript holds.
	if b, _ := store.Read(name + finishing); len(b) > 0 {
		c.turnEnd(inv, store, name, ev, false)
		store.Remove(name + finishing)
	}
	load(store, name, s)

	if ev.Kind == agent.SessionStart && ev.Model != "" {
		s.StartModel = ev.Model
	}
	if c.update(inv, store, name, s, ev, !inv.CanFinishLater()) {
		token = fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
		if err := store.Write(name+finishing, []byte(token)); err != nil {
			inv.Notef("state: %v: waiting here", err)
			c.wait = true
			c.update(inv, store, name, s, ev, true)
			return s, ""
		}
	}
	return s, token
}

// update scans the transcript's new lines into s and saves it, under the
// session's lock. On a turn end it waits for the final message if wait is
// set, else it reports that the message is still to come.
func (c *claudeCLI) update(inv *hook.Invocation, store *state.Store, name string, s *transcript.Session, ev agent.Event, wait bool) (pending bool) {
	path, format := transcriptOf(ev, inv.Getenv)
	if ev.Kind == agent.Prompt && format.ByTime() && !ev.Time.IsZero() {
		s.PromptTS = ev.Time.UnixMilli() // the turn's end is the first since then (flushed)
	}
	counts := path != "" || format.Carried()
	if counts && store.ReadOnly() {
		pending = c.scan(inv, s, ev, path, format, wait || c.wait) // a dry run: the counted ids are kept in memory
	} else if counts {
		set, err := transcript.OpenIDSet(filepath.Join(store.Dir(), name+".ids"), s)
		if err != nil {
			inv.Notef("state: %v: sending the last saved totals", err)
			return false
		}
		pending = c.scan(inv, s, ev, path, format, wait || c.wait)
		if err := set.Close(); err != nil {
			inv.Notef("state: %v", err)
		}
	}
	if d, _ := agent.For(ev.Agent); PID(inv.Getenv) == "" {
		s.PID = agentProcess(d, s.PID, ev, inv.Getenv, inv.Finishing() == "")
	} else if d.Owns != nil {
		s.PID = 0 // the variable names it
	}
	if b, err := s.MarshalBinary(); err == nil {
		if err := store.Write(name+".scan", b); err != nil {
			inv.Notef("state: saving: %v", err)
		}
	}
	return pending
}

// agentProcess is the agent's process that runs the session, where its
// dialect can tell: Pulse's 7th field, whose exit retires the slot. In a
// hook, the process whose own record names the session and that is an
// ancestor of the hook now: the one remembered (pid) while it still is,
// else looked for again, on every event until one is found (a miss is not
// remembered: Claude Code may write its sessions file after the first
// hooks ran). One that exited or was resumed under a new process (its
// sessions file stays) is dropped for the new one. A finisher runs
// detached, with no agent above it: it keeps the one its hook found while
// that process lives and still names the session.
func agentProcess(d *agent.Dialect, pid int, ev agent.Event, getenv func(string) string, inHook bool) int {
	switch {
	case d.Owns == nil:
		return 0
	case !inHook:
		if pid > 1 && agent.Alive(pid) && d.Owns(pid, ev.Session, getenv) {
			return pid
		}
		return 0
	case d.StillRuns(pid, ev.Session, getenv):
		return pid
	}
	return d.Process(ev.Session, getenv)
}

// finish is a finisher's work (hook.StartFinisher): the turn end a hook
// handed over, sent once the final message is in the transcript (or when
// finishBudget is over), with totals that include it. Each round holds the
// session's lock only to scan, so that the next hook of the session is not
// held; the last one sends under it, so that a later hook's event, which
// takes the lock before it is sent, always follows the turn end. A later
// hook that comes first removes the token: then nothing is sent.
func (c *claudeCLI) finish(inv *hook.Invocation, store *state.Store, name string, ev agent.Event, event, token string) {
	if store == nil {
		inv.Skip("finisher: no state directory: nothing to send")
		return
	}
	until := time.Now().Add(finishBudget)
	if dl, ok := inv.Context().Deadline(); ok && dl.Add(-sendReserve).Before(until) {
		until = dl.Add(-sendReserve)
	}
	for {
		ctx, cancel := contextWithin(inv, lockBudget)
		release, err := store.Lock(ctx, name+".scan")
		cancel()
		if err != nil {
			inv.Notef("finisher: %v: the turn end is not sent", err)
			return
		}
		if b, _ := store.Read(name + finishing); string(b) != token {
			release()
			inv.Skip("finisher: a later hook of the session came first: the turn end is not sent")
			return
		}
		s := &transcript.Session{}
		load(store, name, s)
		pending := c.update(inv, store, name, s, ev, false)
		if !pending || time.Now().Add(pollEvery).After(until) {
			if pending {
				inv.Notef("transcript: the final message was not flushed within %v: totals may lag a turn", finishBudget)
			}
			store.Remove(name + finishing)
			inv.Send(Dispatch(inv.Getenv, event, c.payload(inv, s, ev)))
			if b, _ := store.Read(name + ended); len(b) > 0 {
				// The session ended meanwhile (retire): its end follows.
				store.Remove(name + ended)
				store.Remove(name + ".scan")
				store.Remove(name + ".ids")
				inv.Send(Dispatch(inv.Getenv, "session_end", CSV("?", "0", "0", "0", "0", slot(ev))))
			}
			release()
			return
		}
		release()
		time.Sleep(pollEvery)
	}
}

// turnEnd sends the turn end that a finisher of state name has not sent yet,
// before a later event of the session, with the totals the transcript holds
// now. It runs under the session's lock. With settle (the session's end,
// after which nothing would correct the figures) it first waits, briefly, for
// the turn's final message as the Stop would have: Copilot CLI's -p mode
// ends its session before it writes its events file.
func (c *claudeCLI) turnEnd(inv *hook.Invocation, store *state.Store, name string, ev agent.Event, settle bool) {
	sub := *c
	sub.NoSubagents = strings.HasSuffix(name, mainOnly) // the Stop's hook line said which
	s := &transcript.Session{}
	load(store, name, s)
	if settle {
		end := ev
		end.Kind = agent.TurnEnd
		sub.update(inv, store, name, s, end, true)
	} else {
		sub.update(inv, store, name, s, ev, false)
	}
	inv.Notef("this event came before the turn end's finisher sent it: the turn end is sent here, first")
	inv.Send(Dispatch(inv.Getenv, "turn_end", sub.payload(inv, s, ev)))
}

// scan reads the transcript's new lines. On a turn end whose final message
// is not written yet it waits for it, briefly, if wait is set, so that the
// totals shown while the session rests include the last turn; else it
// reports the message as pending: the formats whose agents write behind
// (transcript.Format.Behind). Codex, Gemini CLI and Droid have written
// theirs when they fire their turn end; a payload that carries the usage
// (Format.Carried) holds it all.
func (c *claudeCLI) scan(inv *hook.Invocation, s *transcript.Session, ev agent.Event, path string, format transcript.Format, wait bool) (pending bool) {
	if path == "" {
		// The agent's usage is in the payload (opencode's plugin hands it
		// over with each event): it is there when the event is.
		if err := s.Carried(ev.Raw, format, !c.NoSubagents); err != nil {
			inv.Notef("state: %v", err)
		}
		return false
	}
	deadline := time.Now().Add(scanBudget)
	if dl, ok := inv.Context().Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	byText := format.Behind() && !format.ByTime() // Claude Code's: Said, Finished
	opt := transcript.Options{Format: format, Session: ev.Session, Subagents: !c.NoSubagents, Deadline: deadline, WantText: byText}
	// Copilot CLI may write its events file only after agentStop (in -p
	// mode, the whole file at once, about 100 ms later): a turn end waits
	// for it too, even before it exists.
	lateFile := ev.Kind == agent.TurnEnd && format.LateFile()
	res, err := s.Scan(path, opt)
	if err != nil && !(lateFile && errors.Is(err, os.ErrNotExist)) {
		if !errors.Is(err, os.ErrNotExist) {
			inv.Notef("transcript: %v", err)
		}
		return false
	}
	for _, p := range res.Rescanned {
		inv.Notef("transcript %s was rewritten: read again from the start", p)
	}
	if res.Skipped > 0 {
		inv.Notef("transcript: %d line(s) longer than %d MiB skipped, not counted", res.Skipped, transcript.MaxLine>>20)
	}
	if !res.Done && err == nil {
		inv.Notef("transcript: read for %v and not finished: the next call goes on", scanBudget)
		return false
	}
	if ev.Kind != agent.TurnEnd || !format.Behind() || flushed(s, ev, format) {
		return false
	}
	if !wait {
		return true
	}
	settle := time.Now().Add(settleBudget)
	if dl, ok := inv.Context().Deadline(); ok && dl.Before(settle) {
		settle = dl
	}
	opt.Deadline = settle
	for !flushed(s, ev, format) {
		if time.Now().Add(pollEvery).After(settle) {
			inv.Notef("transcript: the final message was not flushed within %v: totals may lag a turn", settleBudget)
			return false
		}
		time.Sleep(pollEvery)
		if _, err := s.Scan(path, opt); err != nil && !(lateFile && errors.Is(err, os.ErrNotExist)) {
			return false
		}
	}
	return false
}

// flushed reports whether the transcript read into s holds the final
// message of the turn that ev ends (a turn end without one has nothing to
// wait for). Claude Code's Stop names its turn by prompt_id, which never
// repeats: the message is the first that ends that prompt's turn
// (transcript.Session.Finished). Without a prompt_id (older Claude Code)
// the message's text is matched, which can repeat ("Done." twice in a turn
// ends the wait early). Where the turn end names nothing of the turn
// (Copilot CLI's agentStop, Qwen Code's Stop: Format.ByTime), its end is the
// first assistant message that asks for no tool, written since the prompt's
// hook (transcript.Session.EndedSince).
func flushed(s *transcript.Session, ev agent.Event, format transcript.Format) bool {
	if format.ByTime() {
		return s.EndedSince(s.PromptTS)
	}
	if id := ev.Get("prompt_id").Str; id != "" {
		return s.Finished(id)
	}
	return strings.TrimSpace(ev.Message) == "" || s.Said(ev.Message)
}

// load reads the session's saved state; anything unreadable starts afresh.
func load(store *state.Store, name string, s *transcript.Session) {
	b, err := store.Read(name + ".scan")
	if err == nil && b != nil {
		s.UnmarshalBinary(b)
	}
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
