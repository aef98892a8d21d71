package coral

import (
	"context"
	"errors"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// hooks are the kinds of event coral-pulse is installed on: every one
// that changes the Status: or Goal: line.
var hooks = install.Spec{
	Binary:  "coral-pulse",
	Timeout: 10 * time.Second,
	Kinds: []agent.Kind{
		agent.SessionStart, agent.Prompt, agent.ToolStart, agent.ToolEnd, agent.Permission, agent.Attention, agent.TurnEnd, agent.Error, agent.Interrupted, agent.Compact, agent.SessionEnd,
	},
	Env: []install.Var{
		{Name: EnvSession, Help: "the Coral session, <type>-<uuid> (Coral sets it; else the tmux session of TMUX_PANE)"},
		{Name: EnvPane, Help: "the agent's tmux pane, set by tmux: its session is the Coral session"},
		{Name: "TMPDIR", Help: "where Coral's logs are (then /tmp)"},
		{Name: EnvURL, Help: "Coral's server for the events API (default http://localhost:$CORAL_PORT; loopback only)"},
		{Name: EnvPort, Help: "Coral's port (else the session's board state in ~/.coral, or tmux's environment; default " + DefaultPort + ")"},
		{Name: EnvDataDir, Also: []string{EnvDir}, Help: "where Coral keeps its board state (default ~/.coral)"},
	},
	Test: install.Test{Stdin: `{"session_id":"hookwire-doctor","cwd":"/","hook_event_name":"Notification","message":"doctor","notification_type":"idle_prompt"}`},
}

// sessionCheck is doctor's look at Coral from where it runs: a Coral
// session and its log (only inside one), and Coral's server.
func sessionCheck(getenv func(string) string) []install.Finding {
	var out []install.Finding
	f := Finder{Getenv: getenv, Dirs: LogDirs(getenv), Notef: func(string, ...any) {}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := f.Session(ctx)
	switch {
	case errors.Is(err, ErrNotCoral):
		out = append(out, install.Finding{Status: install.Info, What: "not in a Coral session here: coral-pulse writes nothing outside one",
			Fix: "run doctor from a session Coral launched to check its log"})
	case err != nil:
		out = append(out, install.Finding{Status: install.Fail, What: "Coral session: " + err.Error()})
	default:
		if log, err := f.Log(s); err != nil {
			out = append(out, install.Finding{Status: install.Fail, What: "Coral session " + s.Name + ": no log: " + err.Error(),
				Fix: "Coral writes <type>_coral_<uuid>.log in its temp directory: set TMPDIR as Coral has it"})
		} else {
			out = append(out, install.Finding{Status: install.OK, What: "Coral session " + s.Name + ", log " + log})
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	base, from := Locate(ctx, getenv, s)
	if from == "" {
		from = "Coral's default port"
	}
	shown := text.Redact(base) // a URL's userinfo is not for the screen
	if _, err := (httpsend.Request{Method: "GET", URL: base + "/", MaxReply: -1}).Do(ctx); err != nil {
		out = append(out, install.Finding{Status: install.Info, What: "Coral's server does not answer at " + shown + " (from " + from + "; goals and confidences are not posted): " + text.Redact(err.Error())})
	} else {
		out = append(out, install.Finding{Status: install.OK, What: "Coral's server answers at " + shown + " (from " + from + ")"})
	}
	return out
}
