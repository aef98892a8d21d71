package trailboss

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
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
	Env:  []string{"TRAILBOSS_URL", "TRAILBOSS_DAEMON_URL", "TMUX_PANE", "XDG_RUNTIME_DIR", "PULSE_LOG"},
	Test: install.Test{Stdin: `{"session_id":"hookwire-doctor","cwd":"/","hook_event_name":"UserPromptSubmit","prompt":"doctor"}`},
}

// daemonCheck is doctor's look at the daemon: its /status answering, and a
// tmux pane to route events to.
func daemonCheck(getenv func(string) string) []install.Finding {
	var out []install.Finding
	endpoint, err := Endpoint(getenv, false)
	if err != nil {
		return []install.Finding{{Status: install.Fail, What: err.Error(), Fix: "point " + EnvURL + " at the daemon on this machine"}}
	}
	status := strings.TrimSuffix(endpoint, EventPath) + "/status"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	reply, err := httpsend.Request{Method: "GET", URL: status, MaxReply: 4 << 10}.Do(ctx)
	switch {
	case err != nil:
		out = append(out, install.Finding{Status: install.Fail, What: "the Trail Boss daemon does not answer at " + status + ": " + err.Error(),
			Fix: "start it (trailboss-start), or set " + EnvURL + " to where it listens"})
	case reply.Status != httpsend.StatusOK:
		out = append(out, install.Finding{Status: install.Fail, What: fmt.Sprintf("the Trail Boss daemon at %s answers %d", status, reply.Status)})
	default:
		out = append(out, install.Finding{Status: install.OK, What: "the Trail Boss daemon answers at " + status})
	}
	if getenv(EnvPane) == "" {
		out = append(out, install.Finding{Status: install.Info, What: "not in tmux here (TMUX_PANE is unset)",
			Fix: "run your agents in tmux: Trail Boss queues panes"})
	}
	return out
}
