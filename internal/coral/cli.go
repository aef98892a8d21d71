package coral

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transport"
)

// Pulse is coral-pulse: a coding agent's hooks to the STATUS and SUMMARY
// lines of its Coral session, and a safe PULSE emitter for wrapper scripts.
func Pulse() hook.Binary {
	return hook.Binary{
		Name: "coral-pulse",
		Help: `Show what a coding agent does on the Coral dashboard: its "Status:" and "Goal:" lines.

Hook mode (hook JSON of any agent on stdin; an optional event name for agents
whose payload has none): inside a session Coral launched (CORAL_SESSION_NAME, or
a tmux session named <type>-<uuid>), appends ||PULSE:STATUS …|| (with the
session's goal, ||PULSE:SUMMARY …||) to the session's log,
$TMPDIR/<type>_coral_<uuid>.log, in one write, each tag in an APC string that
terminals do not show. The log is never created: outside Coral nothing is
written. CONFIDENCE tags the model wrote, and a goal when there is no log, go to
Coral's events API (loopback only); at each turn end and session end, the tokens
burned since the last post go to its token-usage API (not where Coral reads the
session's transcript itself: its claude, codex and pi sessions).

Args mode, for wrapper scripts: print the sanitized tag on stdout.
  coral-pulse status Running the test suite
  coral-pulse summary Fixing the flaky payment test
  coral-pulse confidence low Unfamiliar with this API, guessing

Always exits 0; in hook mode prints nothing unless PULSE_DRYRUN is set.`,
		CLI:      &pulseCLI{},
		Commands: install.Commands(hooks, Surface().Doctor),
		// The goal is the run's name, the status the command line
		// ("Running make") and then its result, which a session end's
		// "Session ended" would replace.
		Wrap: hook.Wrap{AsTool: true},
	}
}

type pulseCLI struct {
	Hook       hookCmd          `cmd:"" default:"withargs" hidden:"" help:"Handle an agent hook (the default)."`
	Status     statusCmd        `cmd:"" help:"Print a STATUS tag: what is happening now (under 60 characters)."`
	Summary    summaryCmd       `cmd:"" help:"Print a SUMMARY tag: the goal (under 120 characters)."`
	Confidence confidenceCmd    `cmd:"" help:"Print a CONFIDENCE tag (low or high, and why); inside Coral, also post it."`
	Version    kong.VersionFlag `help:"Print the version."`
}

type hookCmd struct {
	Agent string   `help:"The agent, when its payload does not say: ${dialects}."`
	Args  []string `arg:"" optional:"" name:"event" help:"The hook's event name, for agents whose payload has none (Antigravity); Codex notify appends its JSON."`
}

// QuickArgs takes what agents' settings hold without kong (hook.Quick),
// unless the first word names a command.
func (c *pulseCLI) QuickArgs(agentName string, positional []string) hook.Handler {
	if len(positional) > 0 {
		switch positional[0] {
		case "hook", "status", "summary", "confidence":
			return nil
		}
	}
	*c = pulseCLI{Hook: hookCmd{Agent: agentName, Args: positional}}
	return &c.Hook
}

// goalsKept is how long a session's goal is kept without a word from it.
const goalsKept = 7 * 24 * time.Hour

// maxConfidences bounds the confidence events posted for one message.
const maxConfidences = 3

func (c *hookCmd) Run(inv *hook.Invocation) error {
	ev := inv.Event(c.Agent, c.Args)
	if ev.Kind == agent.Unknown && ev.Name != "" && len(c.Args) > 0 && c.Args[0] != ev.Name {
		// The payload names an event nobody maps (a newer agent, a mangled
		// name): the one the settings line gives is what the user meant.
		if k := agent.ArgKind(ev, c.Args[0]); k != agent.Unknown {
			inv.Notef("payload event %q is unknown: using the argument, %s", ev.Name, c.Args[0])
			ev.Name, ev.Kind = c.Args[0], k
			inv.Observe(ev)
		}
	}
	tags := Tags(ev, agent.UserHome(inv.Getenv))
	var confidences []Tag
	if ev.Kind == agent.TurnEnd {
		confidences = Confidences(ev.Message, maxConfidences)
	}
	burned := ev.Kind == agent.TurnEnd || ev.Kind == agent.SessionEnd // token usage to post
	if len(tags) == 0 && len(confidences) == 0 && !burned {
		inv.Skip("%s: nothing to show on the Coral dashboard", kindName(ev))
		return nil
	}

	find := Finder{Getenv: inv.Getenv, Dirs: LogDirs(inv.Getenv), Notef: inv.Notef}
	s, err := find.Session(inv.Context())
	if err != nil {
		inv.Skip("%v", err)
		return nil
	}
	defer postUsage(inv, s, ev) // after the status and goal

	goals := summaries(tags) // this event's own, not a goal carried again
	if len(tags) > 0 {
		if log, err := find.Log(s); err != nil {
			inv.Notef("session %s (from %s): %v: Coral is not recording it, nothing written", s.Name, s.From, err)
		} else {
			inv.Send(transport.Append{Path: log, Data: Frame(carry(inv, s, ev, tags)...)})
			// Coral records a goal itself whenever it reads a new SUMMARY
			// from the log: posting it as well would show it twice.
			goals = nil
		}
	}
	posts := append(goals, confidences...)
	if len(posts) == 0 {
		return nil
	}
	base, from := Locate(inv.Context(), inv.Getenv, s)
	if from != "" {
		inv.Notef("Coral's server %s, from %s", base, from)
	}
	for _, t := range posts {
		kind := EventGoal
		if t.Kind == Confidence {
			kind = EventConfidence
		}
		inv.Send(PostEvent(base, ev.Cwd, s, kind, t.Text))
	}
	return nil
}

// summaries are the SUMMARY tags among tags.
func summaries(tags []Tag) []Tag {
	var out []Tag
	for _, t := range tags {
		if t.Kind == Summary {
			out = append(out, t)
		}
	}
	return out
}

// carry returns the tags to write, with the session's goal again before a
// STATUS that comes without one.
//
// Coral reads the last 256,000 bytes of the log and nothing before: an
// agent's output pushes a SUMMARY written once out of that tail, and the
// card loses its goal (and, when the same goal comes back, Coral records it
// again). Written again with each STATUS, the goal stays in the tail as long
// as the session is active. Coral records a goal only when it differs from
// the last one read, so the repetition adds nothing to the timeline. The
// goal is kept in the state directory, per session; the session's end
// forgets it.
func carry(inv *hook.Invocation, s Session, ev agent.Event, tags []Tag) []Tag {
	open := state.Open
	if inv.DryRun() {
		open = state.OpenReadOnly // a dry run changes nothing on disk
	}
	store, err := open(inv.Getenv, "coral-pulse")
	if err != nil {
		inv.Notef("state: %v: the goal is not written again with later statuses", err)
		return tags
	}
	name := "goal-" + state.Key(s.UUID)
	if ev.Kind == agent.SessionStart && !inv.DryRun() {
		store.Tidy(goalsKept, time.Hour) // the goals of sessions that never said they ended
	}
	if ev.Kind == agent.SessionEnd {
		if !inv.DryRun() {
			store.Remove(name)
		}
		return tags
	}
	if g := summaries(tags); len(g) > 0 {
		if !inv.DryRun() {
			if err := store.Write(name, []byte(g[len(g)-1].Text)); err != nil {
				inv.Notef("state: %v", err)
			}
		}
		return tags
	}
	b, err := store.Read(name)
	if err != nil || len(b) == 0 {
		return tags
	}
	if text := SummaryText(string(b)); text != "" {
		return append([]Tag{{Summary, text}}, tags...)
	}
	return tags
}

type statusCmd struct {
	Text []string `arg:"" optional:"" passthrough:"" help:"What the agent is doing, e.g. Running the tests."`
}

func (c *statusCmd) Run(inv *hook.Invocation) error {
	return printTag(inv, "status", Tag{Status, StatusText(joinArgs(c.Text))})
}

type summaryCmd struct {
	Text []string `arg:"" optional:"" passthrough:"" help:"The goal, one sentence."`
}

func (c *summaryCmd) Run(inv *hook.Invocation) error {
	return printTag(inv, "summary", Tag{Summary, SummaryText(joinArgs(c.Text))})
}

type confidenceCmd struct {
	Level  string   `arg:"" help:"low or high."`
	Reason []string `arg:"" optional:"" passthrough:"" help:"Why, specifically."`
}

// Run prints the tag (Coral's Python parser reads it from the log), and
// inside a Coral session also posts it: Coral's Go server reads no
// CONFIDENCE from logs.
func (c *confidenceCmd) Run(inv *hook.Invocation) error {
	t, ok := ConfidenceTag(c.Level + " " + joinArgs(c.Reason))
	if !ok {
		inv.Observe(agent.Event{Agent: agent.Generic, Name: "confidence"})
		return errors.New("confidence wants a level, low or high, and a reason: nothing printed")
	}
	if err := printTag(inv, "confidence", t); err != nil {
		return err
	}
	find := Finder{Getenv: inv.Getenv, Dirs: LogDirs(inv.Getenv), Notef: inv.Notef}
	s, err := find.Session(inv.Context())
	if err != nil {
		inv.Notef("%v: confidence not posted", err)
		return nil
	}
	cwd, _ := os.Getwd()
	base, _ := Locate(inv.Context(), inv.Getenv, s)
	inv.Send(PostEvent(base, cwd, s, EventConfidence, t.Text))
	return nil
}

// printTag writes the tag on stdout, where a wrapper's output reaches the
// pane that Coral records: in args mode the tag is the product.
func printTag(inv *hook.Invocation, name string, t Tag) error {
	inv.Observe(agent.Event{Agent: agent.Generic, Name: name})
	if t.Text == "" {
		return errors.New(name + ": no text left after sanitizing: nothing printed")
	}
	inv.Reply([]byte(t.String() + "\n"))
	return nil
}

// joinArgs joins arguments as a shell would have passed them in one; a "--"
// that ended the options is not text.
func joinArgs(args []string) string {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	return strings.Join(args, " ")
}

func kindName(ev agent.Event) string {
	if ev.Kind == agent.Unknown {
		if ev.Name == "" {
			return "no event"
		}
		return "event " + ev.Name
	}
	return string(ev.Kind)
}
