package coucou

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/transport"
)

// hooks are the kinds of event nb-hook relays: Coucou's own installers'
// lists, in kinds (each agent's names for them are its dialect's).
// Approvals get 120 s, above the relay's 118 s wait. No Review: it asks the
// hooks about every tool the agent may run, and a card left unanswered
// would hold each up to 118 s (install --approvals adds them).
var hooks = install.Spec{
	Binary:    "nb-hook",
	Timeout:   10 * time.Second,
	Approval:  120 * time.Second,
	Approvals: []agent.Kind{agent.Permission},
	// install --approvals: Copilot CLI's permissionRequest, as cards.
	Ask: []agent.Kind{agent.Review}, AskFlag: "--approvals",
	Kinds: []agent.Kind{
		agent.SessionStart, agent.Prompt, agent.ToolStart, agent.ToolEnd, agent.Permission, agent.Attention, agent.SubagentStart, agent.SubagentStop, agent.TurnEnd, agent.Error, agent.Interrupted, agent.SessionEnd,
	},
	StatusLine: install.StatusLine{Flag: StatusLineFlag, Previous: PreviousFlag},
	Env: []install.Var{
		{Name: EnvSocket, Help: `where the app listens (default $XDG_RUNTIME_DIR/coucou.sock on Linux, ~/Library/Application Support/NotchBuddy/nb.sock on macOS, \\.\pipe\coucou-<SID> on Windows)`},
		{Name: EnvDecisionTimeout, Help: "how long to wait for an approval (default 118s)"},
	},
	Test: install.Test{Stdin: `{"session_id":"hookwire-doctor","cwd":"/","hook_event_name":"Notification","message":"A test from nb-hook doctor"}`},
}

// socketCheck is doctor's look at the app's socket: there, a socket, ours,
// accepting.
func socketCheck(getenv func(string) string) []install.Finding {
	path := SocketPath(Where{GOOS: runtime.GOOS, Getenv: getenv, Exists: exists,
		UID: os.Getuid(), TmpDir: os.TempDir(), SID: userSID()})
	start := install.Finding{Status: install.Fail, Fix: "start Coucou, or set " + EnvSocket + " to where it listens"}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			start.What = "Coucou's socket " + path + " is not there"
			return []install.Finding{start}
		}
		if fi.Mode()&fs.ModeSocket == 0 {
			start.What = path + " is not a socket"
			start.Fix = "remove it, and restart Coucou"
			return []install.Finding{start}
		}
		if uid, ok := safefile.Owner(fi); ok && uid != os.Getuid() {
			start.What = fmt.Sprintf("%s belongs to uid %d, not you: nb-hook will not talk to it", path, uid)
			start.Fix = "remove it, and start Coucou as yourself"
			return []install.Finding{start}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := transport.Reachable(ctx, path); err != nil {
		start.What = "Coucou's socket " + path + ": " + err.Error()
		return []install.Finding{start}
	}
	return []install.Finding{{Status: install.OK, What: "Coucou listens on " + path}}
}
