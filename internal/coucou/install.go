package coucou

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
		{Name: EnvSocket, Help: `where the app listens (default $XDG_RUNTIME_DIR/coucou.sock, else /run/user/<uid>/coucou.sock on Linux, ~/Library/Application Support/NotchBuddy/nb.sock on macOS, \\.\pipe\coucou-<SID> on Windows)`},
		{Name: EnvDecisionTimeout, Help: "how long to wait for an approval (default 118s)"},
	},
	Test: install.Test{Stdin: `{"session_id":"hookwire-doctor","cwd":"/","hook_event_name":"Notification","message":"A test from nb-hook doctor"}`},
}

// socketCheck is doctor's look at the app's socket: where nb-hook looks and
// which of the places that is, there, a socket, ours, accepting; and on
// Linux, who may ask the app for approvals.
func socketCheck(getenv func(string) string) []install.Finding {
	w := Where{GOOS: runtime.GOOS, Getenv: getenv, Exists: exists,
		UID: os.Getuid(), TmpDir: os.TempDir(), SID: userSID()}
	path, why := Looking(w)
	found := socketAt(path, why)
	if runtime.GOOS == "linux" && getenv(EnvSocket) == "" {
		found = append(found, relayOnly(getenv("HOME")))
	}
	return found
}

// relayOnly is what doctor says of approvals on Linux: the app answers a
// PermissionRequest only when the connecting process's executable is its own
// relay (pipe.rs trusted_hook_client), and drops any other client with no
// reply, so nb-hook's card never shows there and the agent asks in its own
// terminal at once. Coucou copies its relay to
// ~/.local/share/coucou/bin/coucou-hook (docs/AGENTS.md).
func relayOnly(home string) install.Finding {
	relay := filepath.Join(home, ".local", "share", "coucou", "bin", "coucou-hook")
	return install.Finding{Status: install.Info,
		What: "on Linux Coucou takes approvals only from its own relay (it checks the executable that connects, and drops any other without a reply): nb-hook's approvals are asked in the agent's own terminal",
		Fix:  "to answer them at the notch, run Coucou's own relay " + relay + " (Coucou puts it there when it starts) on the agents' approval hooks, beside nb-hook"}
}

func socketAt(path, why string) []install.Finding {
	at := path + " (" + why + ")"
	start := install.Finding{Status: install.Fail, Fix: "start Coucou, or set " + EnvSocket + " to where it listens"}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			start.What = "Coucou's socket " + at + " is not there"
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
	} else if !strings.HasPrefix(path, `\\.\pipe\`) {
		// A Unix socket (COUCOU_SOCKET, Windows 10 and later) is a file
		// there too, though not one Go reports as a socket: one that is
		// not there is said so, rather than as the dial's error.
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			start.What = "Coucou's socket " + at + " is not there"
			return []install.Finding{start}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := transport.Reachable(ctx, path); err != nil {
		start.What = "Coucou's socket " + at + ": " + err.Error()
		return []install.Finding{start}
	}
	return []install.Finding{{Status: install.OK, What: "Coucou listens on " + at}}
}
