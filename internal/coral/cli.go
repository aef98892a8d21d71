package coral

import (
	"errors"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
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
a tmux session named <type>-<uuid>), appends ||PULSE:STATUS …|| (and, for a
prompt, ||PULSE:SUMMARY …||) to the session's log, $TMPDIR/<type>_coral_<uuid>.log,
in one write. The log is never created: outside Coral nothing is written. A
prompt's goal, and CONFIDENCE tags the model wrote, also go to Coral's events API
(loopback only).

Args mode, for wrapper scripts: print the sanitized tag on stdout.
  coral-pulse status Running the test suite
  coral-pulse summary Fixing the flaky payment test
  coral-pulse confidence low Unfamiliar with this API, guessing

Environment:
  CORAL_SESSION_NAME   the Coral session, <type>-<uuid> (else tmux's, from TMUX_PANE)
  CORAL_URL            Coral's server (default http://localhost:$CORAL_PORT)
  CORAL_PORT           Coral's port (default 8420)
  PULSE_DRYRUN         print what would be written and posted instead
  PULSE_LOG            append one JSON line per run to this file

Always exits 0; in hook mode prints nothing unless PULSE_DRYRUN is set.`,
		CLI:      &pulseCLI{},
		Commands: install.Commands(hooks, sessionCheck),
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
	Agent string   `help:"The agent, when its payload does not say (gemini, codex, antigravity, cursor, copilot)."`
	Args  []string `arg:"" optional:"" name:"event" help:"The hook's event name, for agents whose payload has none (Antigravity); Codex notify appends its JSON."`
}

// maxConfidences bounds the confidence events posted for one message.
const maxConfidences = 3

func (c *hookCmd) Run(inv *hook.Invocation) error {
	ev := inv.Event(c.Agent, c.Args)
	if ev.Kind == agent.Unknown && ev.Name != "" && len(c.Args) > 0 && c.Args[0] != ev.Name {
		// The payload names an event nobody maps (a newer agent, a mangled
		// name): the one the settings line gives is what the user meant.
		if k := agent.Lookup(c.Args[0]); k != agent.Unknown {
			inv.Notef("payload event %q is unknown: using the argument, %s", ev.Name, c.Args[0])
			ev.Name, ev.Kind = c.Args[0], k
			inv.Observe(ev)
		}
	}
	tags := Tags(ev, inv.Getenv("HOME"))
	var events []Tag
	if ev.Kind == agent.Prompt {
		for _, t := range tags {
			if t.Kind == Summary {
				events = append(events, t)
			}
		}
	}
	if ev.Kind == agent.TurnEnd {
		events = append(events, Confidences(ev.Message, maxConfidences)...)
	}
	if len(tags) == 0 && len(events) == 0 {
		inv.Skip("%s: nothing to show on the Coral dashboard", kindName(ev))
		return nil
	}

	find := Finder{Getenv: inv.Getenv, Dirs: LogDirs(inv.Getenv), Notef: inv.Notef}
	s, err := find.Session(inv.Context())
	if err != nil {
		inv.Skip("%v", err)
		return nil
	}
	if len(tags) > 0 {
		if log, err := find.Log(s); err != nil {
			inv.Notef("session %s (from %s): %v: Coral is not recording it, nothing written", s.Name, s.From, err)
		} else {
			inv.Send(transport.Append{Path: log, Data: Frame(tags...)})
		}
	}
	base := Base(inv.Getenv)
	for _, t := range events {
		kind, summary := EventGoal, t.Text
		if t.Kind == Confidence {
			kind = EventConfidence
		}
		inv.Send(PostEvent(base, ev.Cwd, s, kind, summary))
	}
	return nil
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
	inv.Send(PostEvent(Base(inv.Getenv), cwd, s, EventConfidence, t.Text))
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
