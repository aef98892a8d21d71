package pulse

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/transport"
)

// claudeHooks are the kinds of event pulse-claude is installed on: every
// one that changes what the bar shows (Text, streamed chunks, is left out).
var claudeHooks = install.Spec{
	Binary:  "pulse-claude",
	Timeout: 10 * time.Second,
	Kinds: []agent.Kind{
		agent.SessionStart, agent.Prompt, agent.ToolStart, agent.ToolEnd, agent.Permission, agent.Attention, agent.TurnEnd, agent.Error, agent.Interrupted, agent.Compact, agent.SessionEnd,
	},
	// The reference adapter this binary replaces.
	Legacy: []string{"claude-companion/hooks/pulse.py"},
	Env:    append(slices.Clip(emitEnv), install.Var{Name: "NOCTALIA_PULSE_DRYRUN", Help: "the reference adapter's name for PULSE_DRYRUN"}),
	Test: install.Test{Args: []string{"idle"},
		Stdin: `{"session_id":"hookwire","hook_event_name":"SessionStart","cwd":"/"}`},
}

// emitHooks: pulse-emit is for scripts and CI, not agents' hooks.
var emitHooks = install.Spec{Binary: "pulse-emit", Env: emitEnv, Test: install.Test{Args: []string{"idle", "hookwire-doctor"}}}

// emitEnv are both binaries' variables.
var emitEnv = []install.Var{
	{Name: EnvTarget, Help: "the noctalia plugin entry (default " + DefaultTarget + ")"},
	{Name: EnvPID, Help: "the agent's pid, sent as a 7th field when all digits (pulse-claude finds it otherwise)"},
}

// noctaliaCheck is doctor's look at the target: noctalia on PATH, the shell
// answering, the plugin present.
func noctaliaCheck(getenv func(string) string) []install.Finding {
	path, err := exec.LookPath("noctalia")
	if sock := Socket(getenv); err != nil && (Request{Socket: sock}).listening() {
		// The hooks write on the socket (socket.go); the plugin list is
		// asked of noctalia msg, which is not here.
		return []install.Finding{{Status: install.Info, What: "noctalia is not on PATH, but its socket " + sock + " is there: the hooks write on it",
			Fix: "add noctalia to PATH for doctor to check that it has the plugin"}}
	}
	if err != nil {
		return []install.Finding{{Status: install.Fail, What: "noctalia is not on PATH",
			Fix: "install noctalia (the Wayland shell) or add it to PATH for the agent"}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	reply, err := transport.Command{Argv: []string{"noctalia", "msg", "plugins", "list"}}.Do(ctx)
	out := string(reply.Body)
	switch {
	case strings.Contains(out, "not running"):
		return []install.Finding{{Status: install.Fail, What: "noctalia (" + path + ") is not running", Fix: "start noctalia"}}
	case err != nil:
		return []install.Finding{{Status: install.Fail, What: "noctalia (" + path + ") did not answer: " + err.Error(), Fix: "check that noctalia runs in this session (WAYLAND_DISPLAY)"}}
	}
	plugin, _, _ := strings.Cut(Target(getenv), ":")
	if !strings.Contains(out, plugin) {
		return []install.Finding{{Status: install.Warn, What: "noctalia answers, but does not list the plugin " + plugin,
			Fix: "install the claude-companion plugin and enable it: noctalia msg plugins enable " + plugin}}
	}
	return []install.Finding{{Status: install.OK, What: "noctalia answers, and has the plugin " + plugin}}
}
