package pulse

import (
	"context"
	"errors"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/consent"
	"github.com/hookwire/hookwire/internal/install"
)

// claudeHooks are the kinds of event pulse-claude is installed on: every
// one that changes what the bar shows (Text, streamed chunks, is left out).
// The hooks the consent panel asks on (Claude Code's PreToolUse, Codex's and
// Qwen Code's PermissionRequest, Copilot CLI's permissionRequest, a Review
// the bar shows nothing of) get the panel's 120 s: a person answers.
var claudeHooks = install.Spec{
	Binary:     "pulse-claude",
	Timeout:    10 * time.Second,
	Approval:   consent.Timeout,
	ApprovalAt: consent.AsksAt,
	Kinds: []agent.Kind{
		agent.SessionStart, agent.Prompt, agent.ToolStart, agent.ToolEnd, agent.Permission, agent.Review, agent.Attention, agent.TurnEnd, agent.Error, agent.Interrupted, agent.Compact, agent.SessionEnd,
	},
	// The reference adapter this binary replaces, and the plugin's consent
	// gate, which it runs for Claude Code as for every agent: both would
	// ask the panel about one call.
	Legacy: []string{"claude-companion/hooks/pulse.py", "claude-companion/hooks/consent.py"},
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

// noctaliaCheck is doctor's look at the target: noctalia there (its socket,
// which the hooks write on, or on PATH), the shell answering, the plugin
// present.
func noctaliaCheck(getenv func(string) string) []install.Finding {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, via, err := Ask(ctx, getenv, "plugins", "list")
	switch {
	case via == "":
		return []install.Finding{{Status: install.Fail, What: "noctalia is not on PATH, no socket " + Socket(getenv),
			Fix: "install noctalia (the Wayland shell) or add it to PATH for the agent"}}
	case strings.Contains(out, "not running") || errors.Is(err, syscall.ECONNREFUSED):
		return []install.Finding{{Status: install.Fail, What: "noctalia (" + via + ") is not running", Fix: "start noctalia"}}
	case err != nil:
		return []install.Finding{{Status: install.Fail, What: "noctalia (" + via + ") did not answer: " + err.Error(), Fix: "check that noctalia runs in this session (WAYLAND_DISPLAY)"}}
	}
	answers := "noctalia answers"
	if via == Socket(getenv) {
		answers += " on its socket " + via
	}
	plugin, _, _ := strings.Cut(Target(getenv), ":")
	if !strings.Contains(out, plugin) {
		return []install.Finding{{Status: install.Warn, What: answers + ", but does not list the plugin " + plugin,
			Fix: "install the claude-companion plugin and enable it: noctalia msg plugins enable " + plugin}}
	}
	return append([]install.Finding{{Status: install.OK, What: answers + ", and has the plugin " + plugin}}, consent.Findings(getenv)...)
}
