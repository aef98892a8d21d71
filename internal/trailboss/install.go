package trailboss

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// hooks are the events trailboss-hook is installed on, per agent: those that
// put a session in the queue or take it out.
var hooks = install.Spec{
	Binary:  Name,
	Timeout: 10 * time.Second,
	Kinds: []agent.Kind{
		agent.SessionStart, agent.Prompt, agent.ToolStart, agent.ToolEnd, agent.Permission, agent.Attention, agent.TurnEnd, agent.Error, agent.SessionEnd,
	},
	// The upstream hook this binary replaces (running both would queue
	// every stop twice).
	Legacy: []string{"trailboss-emit.sh"},
	// A prompt: unstuck, which the daemon takes for any session.
	Env: []install.Var{
		{Name: EnvDaemonURL, Help: "the daemon's endpoint, used as given (default " + DefaultURL + EventPath + ")"},
		{Name: EnvURL, Help: "the daemon's base URL, when " + EnvDaemonURL + " is unset; " + EventPath + " is appended. Loopback only, unless --allow-remote"},
		{Name: EnvPane, Help: "the agent's tmux pane, set by tmux: Trail Boss routes by it (without it stuck and registered are not sent)"},
	},
	Test: install.Test{Stdin: `{"session_id":"hookwire-doctor","cwd":"/","hook_event_name":"UserPromptSubmit","prompt":"doctor"}`},
}

// daemonCheck is doctor's look at the daemon: its /status answering, and a
// tmux pane to route events to.
func daemonCheck(getenv func(string) string) []install.Finding {
	var out []install.Finding
	endpoint, err := Endpoint(getenv, false)
	if err != nil {
		return []install.Finding{{Status: install.Fail, What: text.Redact(err.Error()), Fix: "point " + EnvURL + " at the daemon on this machine"}}
	}
	status := strings.TrimSuffix(endpoint, EventPath) + "/status"
	shown := text.Redact(status) // a URL's userinfo is not for the screen
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	reply, err := httpsend.Request{Method: "GET", URL: status, MaxReply: 4 << 10}.Do(ctx)
	switch {
	case err != nil:
		out = append(out, install.Finding{Status: install.Fail, What: "the Trail Boss daemon does not answer at " + shown + ": " + text.Redact(err.Error()),
			Fix: "start it (trailboss-start), or set " + EnvURL + " to where it listens"})
	case reply.Status != httpsend.StatusOK:
		out = append(out, install.Finding{Status: install.Fail, What: fmt.Sprintf("the Trail Boss daemon at %s answers %d", shown, reply.Status)})
	default:
		out = append(out, install.Finding{Status: install.OK, What: "the Trail Boss daemon answers at " + shown})
	}
	if getenv(EnvPane) == "" {
		out = append(out, install.Finding{Status: install.Info, What: "not in tmux here (TMUX_PANE is unset)",
			Fix: "run your agents in tmux: Trail Boss queues panes"})
	}
	return out
}
