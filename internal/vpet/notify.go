package vpet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// Notify is vpet-notify: any agent's hooks to the VPet desktop pet's notify
// sink.
func Notify() hook.Binary {
	return hook.Binary{
		Name: "vpet-notify",
		Help: `Tell the VPet desktop pet what a coding agent's run is doing.

Reads the hook JSON of any agent on stdin and POSTs one event to VPet's notify
sink (HTTP over a Unix socket, bearer token): run.started, run.completed,
run.failed, run.cancelled, tool.started, tool.completed. One way only: it never
asks the pet anything, and sends metadata and the clipped prompt and answer,
never tool output or file contents.

Always exits 0 and prints nothing unless in dry-run.`,
		CLI:      &notifyCLI{},
		Commands: install.Commands(hooks, Surface().Doctor),
		// A turn end a finisher sends (Copilot CLI's, once its answer is
		// written) names the agent's terminal as the hook saw it: the
		// finisher has none.
		Origin: func(getenv func(string) string) map[string]string {
			return map[string]string{EnvTTY: cmp.Or(TTY(getenv), "none")}
		},
		// run.started, then run.completed or run.failed with the duration;
		// the session end closes nothing then, and drops the state.
		Wrap: hook.Wrap{EndsSession: true},
	}
}

type notifyCLI struct {
	Event     string           `arg:"" optional:"" help:"The agent's event name, when its payload has none (Antigravity), or a VPet event (run.completed, …) from a script."`
	Rest      []string         `arg:"" optional:"" hidden:""` // Codex notify appends its JSON
	Agent     string           `help:"The agent, when its payload does not say: ${dialects}, or any name."`
	Source    string           `help:"The envelope's source (default: the agent's name, e.g. claude-code)."`
	Socket    string           `help:"VPet's notify socket (default: VPET_NOTIFY_SOCKET, else VPet's own place)." placeholder:"PATH"`
	TokenFile string           `name:"token-file" help:"The token file (default: VPET_NOTIFY_TOKEN_FILE, else notify.token beside the socket)." placeholder:"PATH"`
	Events    string           `help:"Events to send: a list of names (only those), or -name to switch one off (--events=-tool.*); run.* and tool.* name a family. Default: VPET_NOTIFY_EVENTS, else all." placeholder:"LIST"`
	Version   kong.VersionFlag `help:"Print the version."`
}

// QuickArgs takes what agents' settings hold without kong (hook.Quick).
func (c *notifyCLI) QuickArgs(agentName string, positional []string) hook.Handler {
	*c = notifyCLI{Agent: agentName}
	c.Event, c.Rest = hook.FirstRest(positional)
	return c
}

// Budgets inside the runtime's deadline.
const (
	// DeliveryBudget is agentica's DELIVERY_TIMEOUT_SECONDS: past it the
	// event is dropped, whatever the pet is doing. agentica hands events to
	// a queue and a daemon thread (QUEUE_MAXSIZE 256, oldest dropped); a hook
	// process has no thread to leave behind, so it delivers in line, and
	// the budget is what keeps the agent from waiting.
	DeliveryBudget = 2 * time.Second
	// lockBudget bounds the wait for a parallel hook of the same session.
	lockBudget = 500 * time.Millisecond
	// staleAfter is when a session's state is assumed abandoned.
	staleAfter = 7 * 24 * time.Hour
)

// URL is the sink's endpoint; the socket carries it, the host only names it.
const URL = "http://localhost/event"

// Reasons for run.cancelled.
const (
	ReasonInterrupted  = "interrupted"
	ReasonSessionEnded = "session ended"
)

// vpetKinds translates a VPet event given as the argument (from a script)
// into the canonical kind that sends it.
var vpetKinds = map[string]agent.Kind{
	RunStarted:    agent.Prompt,
	RunCompleted:  agent.TurnEnd,
	RunFailed:     agent.Error,
	RunCancelled:  agent.Interrupted,
	ToolStarted:   agent.ToolStart,
	ToolCompleted: agent.ToolEnd,
}

// A plan is what a kind may send, and which switched-on events need the
// session state it keeps. A kind whose events are all off and whose state
// nobody needs costs nothing: no state, no socket, no token.
type plan struct {
	sends []string
	// stateFor lists the events that read what this kind records.
	stateFor []string
}

// plans is ARCHITECTURE.md's VPet column. Kinds absent here send nothing:
// approvals and questions are not this channel's (agentica's notify-sink.md: it never asks),
// and nor are compaction, subagents or streaming text.
var plans = map[agent.Kind]plan{
	agent.SessionStart: {stateFor: []string{RunStarted, RunCompleted, RunFailed, RunCancelled, ToolCompleted}}, // GC; the agent's name
	agent.Prompt:       {sends: []string{ToolCompleted, RunStarted}, stateFor: []string{ToolCompleted, RunCompleted, RunFailed, RunCancelled}},
	agent.ToolStart:    {sends: []string{ToolStarted}, stateFor: []string{ToolCompleted, RunCompleted}},
	agent.ToolEnd:      {sends: []string{ToolCompleted}, stateFor: []string{ToolCompleted}},
	agent.TurnEnd:      {sends: []string{ToolCompleted, RunCompleted}, stateFor: []string{ToolCompleted, RunCompleted, RunCancelled}},
	agent.Error:        {sends: []string{ToolCompleted, RunFailed}, stateFor: []string{ToolCompleted, RunFailed, RunCancelled}},
	agent.Interrupted:  {sends: []string{ToolCompleted, RunCancelled}, stateFor: []string{ToolCompleted, RunCancelled}},
	agent.SessionEnd:   {sends: []string{ToolCompleted, RunCancelled}, stateFor: []string{ToolCompleted, RunCancelled}},
}

// consumesOnly are the kinds that only ever read or shrink existing state:
// an absent state file needs no lock, and stays absent.
var consumesOnly = map[agent.Kind]bool{
	agent.ToolEnd: true, agent.TurnEnd: true, agent.Error: true, agent.Interrupted: true, agent.SessionEnd: true,
}

func (c *notifyCLI) Run(inv *hook.Invocation) error {
	args := c.args()
	ev := inv.Event(c.Agent, args)
	if k := argKind(ev, args); k != agent.Unknown {
		// The payload names an event nobody maps (or a garbled one): the
		// settings line's argument says what this hook is for.
		inv.Notef("sending what the argument %q names", args[0])
		ev.Kind = k
		if k == agent.ToolEnd {
			ev.OK = true
		}
		inv.Observe(ev)
	}
	sw := c.switches(inv)
	p, mapped := plans[ev.Kind]
	wantState := ev.Session != "" && sw.Any(p.stateFor...)
	if !mapped || !sw.Any(p.sends...) && !wantState && ev.Kind != agent.SessionEnd {
		if !mapped {
			inv.Skip("%s: not something the pet is told about", kindName(ev))
		} else if len(p.sends) > 0 {
			inv.Skip("%s is switched off (%v)", strings.Join(p.sends, ", "), sw)
		}
		return nil
	}

	// A pet that is not running costs nothing either: no state, no token
	// file appears (agentica's notify-sink.md: a user without the pet open
	// must notice no difference). Only a session's end still removes its state.
	socket := SocketPath(inv.Getenv, runtime.GOOS, c.Socket)
	// Over ssh without PAM there is no XDG_RUNTIME_DIR, hence no socket
	// path: with a relay set up the envelope is still handed over.
	if socket == "" && !inv.RelaySetUp() {
		inv.Skip("no socket: set %s (neither HOME on macOS nor XDG_RUNTIME_DIR elsewhere is set)", EnvSocket)
		return nil
	}
	if _, err := os.Stat(socket); errors.Is(err, fs.ErrNotExist) && !inv.DryRun() && !inv.RelaySetUp() {
		inv.Skip("no VPet socket at %s: the pet is not running", socket)
		if ev.Kind == agent.SessionEnd {
			(&notice{inv: inv, ev: ev}).update(false)
		}
		return nil
	}

	n := &notice{inv: inv, ev: ev}
	n.update(wantState)
	var todo []Envelope
	for _, m := range n.out {
		if sw.On(m.Event) {
			todo = append(todo, m)
		}
	}
	if len(todo) == 0 {
		if len(n.out) > 0 {
			inv.Skip("%s is switched off (%v)", n.out[0].Event, sw)
		} else if ev.Kind != agent.SessionStart {
			inv.Skip("%s: nothing to tell the pet", kindName(ev))
		}
		return nil
	}
	return c.deliver(inv, ev, socket, todo)
}

// args are the positional arguments, with a VPet event name translated into
// the kind that sends it.
func (c *notifyCLI) args() []string {
	args := append([]string{c.Event}, c.Rest...)
	if c.Event == "" {
		args = c.Rest
	}
	if len(args) > 0 {
		if k, ok := vpetKinds[strings.ToLower(args[0])]; ok {
			args[0] = string(k)
		}
	}
	return args
}

// argKind is the kind the first argument names, if it names one.
func argKind(ev agent.Event, args []string) agent.Kind {
	if len(args) == 0 || strings.HasPrefix(strings.TrimSpace(args[0]), "{") {
		return agent.Unknown
	}
	return agent.ArgKind(ev, args[0])
}

func (c *notifyCLI) switches(inv *hook.Invocation) Switches {
	spec, from := c.Events, "--events"
	if spec == "" {
		spec, from = inv.Getenv(EnvEvents), EnvEvents
	}
	sw, unknown := ParseSwitches(spec)
	if len(unknown) > 0 {
		inv.Notef("%s: %s not understood (events are %s; run.*, tool.*, all, none): ignored",
			from, strings.Join(unknown, ", "), strings.Join(Events, ", "))
	}
	return sw
}

// notice turns one agent event into the pet's events, keeping the session
// state that durations and cancellations need.
type notice struct {
	inv *hook.Invocation
	ev  agent.Event
	s   *Session
	out []Envelope
}

// update reads the session's state under its lock (when wanted and
// possible), derives the events and saves what changed. Without state the
// events still go out, without what only the state knows.
func (n *notice) update(wantState bool) {
	n.s = &Session{}
	store, name := n.store(wantState)
	if store == nil {
		n.derive()
		return
	}
	ctx, cancel := context.WithTimeout(n.inv.Context(), lockBudget)
	defer cancel()
	release, err := store.Lock(ctx, name)
	if err != nil {
		n.inv.Notef("state: another hook of this session held it past %v: durations are not known", lockBudget)
		n.derive()
		return
	}
	defer release()
	old, err := store.Read(name)
	if err != nil {
		n.inv.Notef("state: %v", err)
	}
	n.s = DecodeSession(old)
	n.derive()
	switch now := n.s.Encode(); {
	case n.ev.Kind == agent.SessionEnd:
		err = store.Remove(name)
	case n.s.Empty() && old == nil, string(now) == string(old):
	default:
		err = store.Write(name, now)
	}
	if err != nil {
		n.inv.Notef("state: saving: %v", err)
	}
}

// store is the state store and the session's name in it, when the event
// has state to read; nil when it has none (or none can be had).
func (n *notice) store(wantState bool) (*state.Store, string) {
	ev := n.ev
	if ev.Session == "" || !wantState && ev.Kind != agent.SessionEnd {
		return nil, ""
	}
	store, err := openState(n.inv)
	if err != nil {
		if wantState {
			n.inv.Notef("state: %v: durations and cancellations are not known", err)
		}
		return nil, ""
	}
	name := state.Key(ev.Session) + ".json"
	if !wantState { // a session end whose events are off: only clean up
		store.Remove(name)
		return nil, ""
	}
	if ev.Kind == agent.SessionStart {
		// Sessions that ended without a session end (a crash, an agent
		// that sends none) leave their state behind.
		store.Tidy(staleAfter, time.Hour)
		if agentName(ev) == "" {
			return nil, "" // nothing to remember
		}
	}
	if consumesOnly[ev.Kind] {
		// Most of these find no state (a Stop in a session whose prompt
		// hook is not installed): then there is nothing to lock for.
		if b, err := store.Read(name); err == nil && b == nil {
			return nil, ""
		}
	}
	return store, name
}

// derive updates the state for the event and builds the envelopes, per
// event the keys of the reference's per-event table and nothing else.
func (n *notice) derive() {
	ev, s := n.ev, n.s
	name := agentName(ev)
	if name != "" && s.AgentName == "" {
		s.AgentName = name // agentica keeps the first non-empty one
	}
	name = text.Clip(text.OneLine(cmp.Or(name, s.AgentName)), 100)

	switch ev.Kind {
	case agent.Prompt:
		n.closeTools()
		s.StartRun(ev.Time)
		n.emit(RunStarted, Payload{AgentName: name, Prompt: ClipText(ev.Prompt)})

	case agent.ToolStart:
		s.Responded() // the model answered with a tool call
		s.StartTool(ev.ToolUseID, ev.Tool, ev.Time, ev.Subagent != "")
		n.emit(ToolStarted, n.toolPayload())

	case agent.ToolEnd:
		n.emit(ToolCompleted, n.toolEnded(ev.OK))

	case agent.TurnEnd:
		n.closeTools()
		n.emit(RunCompleted, n.completed(name))

	case agent.Error:
		n.closeTools()
		p := Payload{AgentName: name, Error: RunError(ev.ErrorType, ev.Error)}
		if r := s.EndRun(false); r != nil {
			p.DurationSeconds = Since(time.Unix(0, r.Start), ev.Time)
		}
		n.emit(RunFailed, p)

	case agent.Interrupted:
		if ev.Tool != "" || ev.ToolUseID != "" { // the tool the user cut short
			n.emit(ToolCompleted, n.toolEnded(false))
		}
		n.cancel(name, ReasonInterrupted)

	case agent.SessionEnd:
		if s.Run != nil && s.Run.Open {
			n.cancel(name, ReasonSessionEnded)
		}
	}
}

// toolEnded is a tool's completion, with its duration when its start is
// known, and its error unless ok.
func (n *notice) toolEnded(ok bool) Payload {
	ev := n.ev
	p := n.toolPayload()
	p.OK = ptr(ok)
	if start, known := n.s.EndTool(ev.ToolUseID, ev.Tool); known {
		p.DurationSeconds = Since(start, ev.Time)
	}
	if !ok {
		p.Error = ToolError(ev.Error)
	}
	return p
}

// completed is a turn end's run completion.
func (n *notice) completed(name string) Payload {
	ev := n.ev
	p := Payload{AgentName: name, Answer: ClipText(ev.Message), AnsweredAt: ptr(Unix(ev.Time))}
	// A Stop hook that blocked the stop makes the agent go on and stop
	// again (stop_hook_active): the user's run is the whole of it.
	if r := n.s.EndRun(ev.Get("stop_hook_active").Bool()); r != nil {
		p.DurationSeconds = Since(time.Unix(0, r.Start), ev.Time)
		// "No response" is known only from an agent that reports the
		// answer (Cursor and Antigravity do not: a text-only answer
		// would look like none).
		if had := r.HadResponse || p.Answer != ""; had || answerReported(ev) {
			p.HadResponse = ptr(had)
		}
	} else if p.Answer != "" {
		p.HadResponse = ptr(true) // without the run, only an answer says so
	}
	return p
}

// closeTools completes, ok false, the tools still open at a turn boundary:
// a tool refused by the user or by another hook fires PreToolUse and never
// PostToolUse (every agent does so).
func (n *notice) closeTools() {
	for _, t := range n.s.RefusedTools() {
		n.emit(ToolCompleted, Payload{ToolName: clipName(t.Name), ToolCallID: clipName(t.ID), OK: ptr(false)})
	}
}

// cancel ends the run as cancelled: every tool still open completes with
// ok false (agentica: a call cancelled mid-run still sends its completion),
// then the run.
func (n *notice) cancel(agentName, reason string) {
	for _, t := range n.s.CancelTools() {
		n.emit(ToolCompleted, Payload{ToolName: clipName(t.Name), ToolCallID: clipName(t.ID), OK: ptr(false)})
	}
	n.s.EndRun(false)
	n.emit(RunCancelled, Payload{AgentName: agentName, Reason: reason})
}

func (n *notice) toolPayload() Payload {
	return Payload{ToolName: clipName(n.ev.Tool), ToolCallID: clipName(n.ev.ToolUseID), Preview: Preview(n.ev.ToolInput)}
}

func clipName(s string) string { return text.Clip(text.OneLine(s), 200) }

// emit adds an envelope; ts and transport are stamped when it is sent.
func (n *notice) emit(event string, p Payload) {
	p.Title = titles[event]
	n.out = append(n.out, Envelope{V: 1, Event: event, SessionKey: n.ev.Session, Payload: p})
}

// agentName is the agent's own name for itself, when the payload gives one:
// agent_name (plugins that speak agentica's terms), or Claude Code's
// agent_type on a session started with --agent. Inside a subagent agent_type
// names the subagent (and Event.Subagent is set), which is not the session's agent.
func agentName(ev agent.Event) string {
	if v := ev.Get("agent_name"); v.Str != "" {
		return v.Str
	}
	if ev.Subagent != "" {
		return ""
	}
	return ev.Get("agent_type").Str
}

// answerReported says the turn's end carries the final answer, even an empty
// one: Claude Code's and Codex's last_assistant_message, Gemini's
// prompt_response, Codex notify's last-assistant-message.
func answerReported(ev agent.Event) bool {
	for _, k := range []string{"last_assistant_message", "prompt_response", "last-assistant-message"} {
		if ev.Get(k).Exists() {
			return true
		}
	}
	return false
}

// deliver sends the envelopes in order, all of them within DeliveryBudget.
func (c *notifyCLI) deliver(inv *hook.Invocation, ev agent.Event, socket string, envs []Envelope) error {
	away := onDesktop(inv, socket) // forward.go
	header, tok, tokErr := c.header(inv, socket, away)
	source := c.Source
	if source == "" {
		source = Source(ev.Agent)
	}
	tp := Transport{PPID: inv.ParentPID(), Cwd: ev.Cwd, TTY: TTY(inv.Getenv)}
	deadline := time.Now().Add(DeliveryBudget)
	var failed error
	for i, e := range envs {
		e.Source, e.Transport, e.TS = source, tp, Unix(time.Now())
		body, err := e.Encode()
		if err != nil {
			return fmt.Errorf("encoding %s: %w", e.Event, err)
		}
		reply, err := inv.Send(crossing(budgeted{Request: httpsend.Request{
			URL: URL, Socket: socket, Header: header, Body: body,
			Secret: []string{"Authorization"}, MaxReply: -1,
		}, deadline: deadline}, e, ev, away))
		if inv.DryRun() || away && err == nil || errors.Is(err, transport.ErrHandedOver) {
			continue // a courier carries a handed-over one on, and the next after it
		}
		dropped := len(envs) - i - 1
		if (err != nil || reply.Status == httpsend.StatusUnauthorized) && dropped > 0 {
			inv.Notef("%d more event(s) dropped: the pet did not take %s", dropped, e.Event)
		}
		switch {
		case err != nil:
			return nil // the log has the error
		case reply.Status == httpsend.StatusUnauthorized:
			// Retrying cannot help: the pet and this hook hold different
			// tokens, and only the user can settle which is right.
			if tokErr != nil {
				return fmt.Errorf("token mismatch: VPet answered 401 and no token was sent (%v)", tokErr)
			}
			return fmt.Errorf("token mismatch: VPet refused the token from %s (401), not retried", tok.Where)
		case reply.Status/100 != 2:
			failed = fmt.Errorf("VPet answered %d to %s", reply.Status, e.Event)
		}
	}
	return failed
}

// header is the requests' header, with the token (created on the first
// real run), and the token or why there is none.
func (c *notifyCLI) header(inv *hook.Invocation, socket string, away bool) (httpsend.Header, Token, error) {
	header := httpsend.Header{"Content-Type": {"application/json"}}
	if away {
		// The desktop adds its own token: none here, and no token file.
		return header, Token{}, nil
	}
	tok, tokErr := ResolveToken(TokenOptions{
		Getenv: inv.Getenv,
		File:   TokenFile(inv.Getenv, c.TokenFile, socket),
		Create: !inv.DryRun(),
		Lock:   tokenLock(inv),
		Ctx:    inv.Context(),
	})
	switch {
	case tokErr == nil:
		header.Set("Authorization", "Bearer "+tok.Value)
		if tok.Created {
			inv.Notef("created %s with a new token (VPet adopts it, or answers 401 until it does)", strings.TrimPrefix(tok.Where, "the token file "))
		}
	case errors.Is(tokErr, ErrAbsent):
		// A real run would create or fill the file; the header shows only
		// that a token goes out.
		header.Set("Authorization", "Bearer (created on the first real run)")
		inv.Notef("dry run: %v: a real run creates it", tokErr)
	default:
		inv.Notef("%v: sending without a token", tokErr)
	}
	return header, tok, tokErr
}

// budgeted is a request that must be done by a deadline of its own, inside
// the runtime's: the delivery budget.
type budgeted struct {
	httpsend.Request
	deadline time.Time
}

func (b budgeted) Do(ctx context.Context) (transport.Reply, error) {
	ctx, cancel := context.WithDeadline(ctx, b.deadline)
	defer cancel()
	return b.Request.Do(ctx)
}

// tokenLock serializes token creation among this user's hooks, through the
// state directory; nil when there is none (O_EXCL still decides).
func tokenLock(inv *hook.Invocation) func(ctx context.Context) (func(), error) {
	return func(ctx context.Context) (func(), error) {
		store, err := openState(inv)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, lockBudget)
		defer cancel()
		return store.Lock(ctx, "token")
	}
}

func kindName(ev agent.Event) string {
	if ev.Kind == agent.Unknown {
		return fmt.Sprintf("event %q", ev.Name)
	}
	return string(ev.Kind)
}

// openState is the session state's store; a dry run's changes nothing.
func openState(inv *hook.Invocation) (*state.Store, error) {
	if inv.DryRun() {
		return state.OpenReadOnly(inv.Getenv, "vpet-notify")
	}
	return state.Open(inv.Getenv, "vpet-notify")
}
