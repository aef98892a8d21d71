package coucou

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/consent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/transport"
)

// Relay is nb-hook: any agent's hooks to the Coucou notch, approvals
// included.
func Relay() hook.Binary {
	return hook.Binary{
		Name: "nb-hook",
		Help: `Relay a coding agent's hook to the Coucou notch app.

Reads the hook JSON on stdin and sends it to the app, translated into Claude
Code's vocabulary, with the agent's pill named by --agent. On a permission
request from an agent that takes decisions (Claude Code, Codex; Copilot CLI
with --approvals), waits for the answer from the notch and prints it in the
agent's format; without an answer it prints nothing and the agent asks in
its terminal.

With --statusline it is Claude Code's status line command instead: it passes
the plan limits to the app's plan-usage pill and prints what the status line it
chains (--previous) prints.

Socket: $COUCOU_SOCKET, else on Linux $XDG_RUNTIME_DIR/coucou.sock or
/run/user/<uid>/coucou.sock, on macOS
~/Library/Application Support/NotchBuddy/nb.sock, on Windows
\\.\pipe\coucou-<SID>.

Always exits 0.`,
		CLI:      &relayCLI{},
		Commands: install.Commands(hooks, socketCheck),
		// What a hook whose event a finisher relays prints (Copilot CLI's
		// turn end, sent once its answer is written).
		Neutral: func(ev agent.Event) string { return Reply(ev, None, nil) },
		// What Run waits for an answer on, without --ask and --approvals.
		Decides: func(ev agent.Event) bool { return AppName(ev) == "PermissionRequest" && TakesDecisions(ev) },
		// The pill shows done or failed after the command: no session end.
		Wrap: hook.Wrap{},
	}
}

type relayCLI struct {
	Agent           string           `help:"The agent's pill: ${dialects}, or any name; none for Claude Code."`
	Approvals       bool             `help:"Copilot CLI: relay permissionRequest as an approval card and wait for its answer. Copilot asks its hooks about every tool that is not read-only, even those it would allow: use this only if it asks you about each anyway (no --allow-all-tools)."`
	Event           string           `arg:"" optional:"" help:"The event, for agents whose payload names none (Antigravity)."`
	Rest            []string         `arg:"" optional:"" hidden:""` // ignored, as the reference relay does
	StatusLine      bool             `name:"statusline" help:"Be Claude Code's status line command: pass the plan limits to the app, and print what the previous status line (--previous) prints."`
	Previous        string           `placeholder:"COMMAND" help:"With --statusline: the status line command to chain (run with sh -c, the same input)."`
	Ask             bool             `help:"Claude Code's PreToolUse hook for AskUserQuestion: show the question at the notch and answer it from there (waits up to 125s)."`
	DecisionTimeout string           `name:"decision-timeout" placeholder:"DURATION" help:"How long to wait for an approval (default 118s, 125s with --ask; env COUCOU_DECISION_TIMEOUT)."`
	Version         kong.VersionFlag `help:"Print the version."`
}

// QuickArgs takes what agents' settings hold without kong (hook.Quick).
func (c *relayCLI) QuickArgs(agentName string, positional []string) hook.Handler {
	*c = relayCLI{Agent: agentName}
	c.Event, c.Rest = hook.FirstRest(positional)
	return c
}

// Time limits. An approval waits for a person: the app gives up at 115 s,
// this relay at 118 s, and the installed hook timeout is 120 s.
const (
	DefaultDecisionTimeout = 118 * time.Second
	// DefaultAskTimeout is --ask's: the app gives up on a question at 120 s,
	// the relay at 125 s, and the hook is installed with 130 s.
	DefaultAskTimeout = 125 * time.Second
	connectWithin     = 300 * time.Millisecond
	ackWithin         = 300 * time.Millisecond
	maxAnswer         = 64 << 10
)

// EnvDecisionTimeout overrides DefaultDecisionTimeout.
const EnvDecisionTimeout = "COUCOU_DECISION_TIMEOUT"

func (c *relayCLI) Run(inv *hook.Invocation) error {
	if c.StatusLine {
		return c.statusLine(inv)
	}
	ev, payload, tag := c.event(inv)
	if skip := c.notShown(ev); skip != "" {
		inv.Skip("%s: %s: not relayed", ev.Name, skip)
		c.reply(inv, ev, None, nil) // what the agent reads after every hook, still
		return nil
	}
	question := ev.Tool == agent.AskUserQuestion && TakesDecisions(ev) // the notch can answer it
	if c.Ask && !question {
		// The --ask hook's matcher is AskUserQuestion; anything else is not
		// for it (the macOS relay returns the same way).
		inv.Skip("--ask: not a Claude Code AskUserQuestion: nothing to relay")
		return nil
	}
	kind := ""
	if c.Ask {
		kind = KindAsk
	}
	line, event, ok := Translate(payload, Input{Event: c.Event, Agent: tag, Getenv: inv.Getenv, Getwd: os.Getwd,
		Now: time.Now(), Kind: kind, Parsed: &ev})
	if !ok {
		inv.Skip("stdin: no JSON object: nothing to relay")
		c.reply(inv, ev, None, nil)
		return nil
	}
	if event == "PermissionRequest" && TakesDecisions(ev) && consent.Takes(inv.Getenv, ev) {
		// One approval asks one place: the panel, whose enforce the person
		// chose (docs/coucou.md).
		inv.Skip("%s: the Noctalia consent panel asks it (its mode is enforce): no card here", ev.Name)
		c.reply(inv, ev, None, nil)
		return nil
	}
	path := SocketPath(Where{GOOS: runtime.GOOS, Getenv: inv.Getenv, Exists: exists,
		UID: os.Getuid(), TmpDir: os.TempDir(), SID: userSID()})
	send := transport.SocketLine{Path: path, Line: line, ReadReply: true,
		ConnectWithin: connectWithin, MaxReply: maxAnswer}
	closeRefused(inv, ev, event, tag, send)
	waits := event == "PermissionRequest" && TakesDecisions(ev) // as Relay's Decides says
	if !waits && !c.Ask {
		// The app acknowledges with {"ok":true} (macOS) or just closes
		// (Windows, Linux); waiting briefly keeps us alive while it looks
		// up our process tree to find the terminal.
		send.ReplyWithin, send.ReplyOptional = ackWithin, true
		inv.Send(crossing(send, event, ev.Session, false))
		c.reply(inv, ev, None, nil)
		return nil
	}
	c.decide(inv, ev, send, question)
	return nil
}

// event is the event, the payload relayed (the dialect's reading of stdin
// or of the argument an agent passes its JSON in, or a script's event as
// Claude Code would have sent it), and the pill's agent tag.
func (c *relayCLI) event(inv *hook.Invocation) (ev agent.Event, payload []byte, tag string) {
	name := c.Agent
	var args []string
	if c.Event != "" {
		args = append([]string{c.Event}, c.Rest...)
	}
	if name != "" && name != "claude" {
		if ValidAgent(name) {
			tag = name
		} else {
			inv.Notef("--agent %q is not a name the app accepts (^[a-z0-9-]{1,24}$): the event goes to the Claude Code pill", name)
		}
	}
	ev = inv.Event(name, args) // for the log, the session-end budget, and what the dialect normalizes
	if d, known := agent.For(ev.Agent); known && d.Runs != nil && tag != string(ev.Agent) && ValidAgent(string(ev.Agent)) {
		// An agent that runs another's hooks (Grok Build, Devin CLI and
		// Qoder CLI run Claude Code's): its own pill, whatever the line says.
		tag = string(ev.Agent)
	}
	// Cut at the stdin cap, the payload keeps its complete leading fields.
	payload = ev.Raw
	if ev.Script && payload == nil {
		// A script's event, by arguments: the payload Claude Code would
		// have sent, on a pill of its own.
		payload = ScriptPayload(ev)
		if name == "" {
			tag = ScriptAgent
		}
	}
	return ev, payload, tag
}

// closeRefused relays, before a turn boundary, the end (not ok) of each
// tool that never got its PostToolUse.
func closeRefused(inv *hook.Invocation, ev agent.Event, event, tag string, send transport.SocketLine) {
	for _, p := range refusedTools(inv, ev, event) {
		if l, e, ok := Translate(encode(p), Input{Agent: tag, Getenv: inv.Getenv, Getwd: os.Getwd, Now: time.Now()}); ok {
			closer := send
			closer.Line, closer.ReadReply, closer.ReplyWithin, closer.ReplyOptional = l, true, ackWithin, true
			inv.Send(crossing(closer, e, ev.Session, false))
		}
	}
}

// decide sends an event a person answers in the app (an approval, a
// question), waits for the answer, and replies to the agent with it.
func (c *relayCLI) decide(inv *hook.Invocation, ev agent.Event, send transport.SocketLine, question bool) {
	if !inv.DryRun() {
		inv.AwaitHuman(c.decisionTimeout(inv))
	}
	answer, err := inv.Send(crossing(send, ev.Name, ev.Session, true))
	d := None
	if err == nil {
		d = ParseDecision(answer.Body)
		if d == None && len(answer.Body) > 0 {
			inv.Notef("the app's answer %q is no decision: the agent asks in its terminal", clip(answer.Body))
		}
	}
	if d == Answer || c.Ask {
		// A question's answer goes back as the question's own input, exactly
		// as Claude Code sent it, with the answers added.
		if d == Answer && question {
			if updated, ok := UpdatedInput([]byte(ev.Get("tool_input").Raw), answer.Body); ok {
				if r := AnswerReply(ev, updated); r != "" {
					inv.Reply([]byte(r + "\n"))
					return
				}
			}
		}
		if d != None {
			inv.Notef("the app's answer %q does not answer the questions asked: Claude Code asks in its terminal", clip(answer.Body))
		}
		if c.Ask {
			return
		}
		d = None
	}
	c.reply(inv, ev, d, []byte(ev.Get("permission_suggestions").Raw))
}

// notShown says why the app is not told of ev, or "". The app is told
// of the kinds nb-hook is installed for (hooks.Kinds), and, with
// --approvals, of an agent asking its hooks (Review); not of what the
// agent's dialect makes nothing (Qwen Code's auth_success at every start,
// Gemini CLI's automatic PreCompress before every request) or of another
// kind (Qwen Code's empty prompt after each tool is thinking resumed, a
// streamed chunk is text). A name no dialect knows passes as it is, as
// Coucou's relays pass any name they do not know.
func (c *relayCLI) notShown(ev agent.Event) string {
	d, known := agent.For(ev.Agent)
	switch {
	case ev.Script, ev.Kind == agent.Review && c.Approvals, slices.Contains(hooks.Kinds, ev.Kind):
		return ""
	case ev.Kind == agent.Review:
		// Not a person being asked (the agent says so when one is): a card
		// here would hold each call the agent allows up to 118 s.
		return "the agent asks its hooks about a tool, no person (--approvals relays it as a card)"
	case ev.Kind != agent.Unknown:
		return fmt.Sprintf("%s is nothing the app shows", ev.Kind)
	}
	if _, named := d.KindOf(ev.Name); known && named {
		return fmt.Sprintf("the %s dialect makes it nothing", ev.Agent)
	}
	return ""
}

func (c *relayCLI) reply(inv *hook.Invocation, ev agent.Event, d Decision, suggestions []byte) {
	if r := Reply(ev, d, suggestions); r != "" {
		inv.Reply([]byte(r + "\n"))
	}
}

// decisionTimeout is --decision-timeout, else $COUCOU_DECISION_TIMEOUT, else
// the default; a value that does not parse is noted and ignored.
func (c *relayCLI) decisionTimeout(inv *hook.Invocation) time.Duration {
	def := DefaultDecisionTimeout
	if c.Ask {
		def = DefaultAskTimeout
	}
	for _, v := range []string{c.DecisionTimeout, inv.Getenv(EnvDecisionTimeout)} {
		if v == "" {
			continue
		}
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
		inv.Notef("decision timeout %q is not a duration like 90s: using %v", v, def)
	}
	return def
}

func clip(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
