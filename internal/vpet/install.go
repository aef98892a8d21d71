package vpet

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/transport"
)

// hooks are the events vpet-notify is installed on, per agent: a run's
// start and end and its tools.
var hooks = install.Spec{
	Binary:  "vpet-notify",
	Timeout: 10 * time.Second,
	Kinds: []agent.Kind{
		agent.SessionStart, agent.Prompt, agent.ToolStart, agent.ToolEnd, agent.TurnEnd, agent.Error, agent.Interrupted, agent.SessionEnd,
	},
	// A prompt: run.started, which the pet shows and forgets.
	Env: []install.Var{
		{Name: EnvSocket, Also: []string{agenticaNames[EnvSocket]}, Help: "VPet's socket (default ~/Library/Application Support/VPet/notify.sock on macOS, $XDG_RUNTIME_DIR/vpet/notify.sock elsewhere)"},
		{Name: EnvToken, Also: []string{agenticaNames[EnvToken]}, Help: "the bearer token; else read from the token file"},
		{Name: EnvTokenFile, Also: []string{agenticaNames[EnvTokenFile]}, Help: "the token file (default notify.token beside the socket), created 0600 if absent, never overwritten"},
		{Name: EnvEvents, Help: "events to send (run.*, -tool.started, …), as --events"},
		{Name: EnvTTY, Help: "the agent's terminal, if the hook's controlling terminal is not it (none: send none)"},
	},
	Test: install.Test{Stdin: `{"session_id":"hookwire-doctor","cwd":"/","hook_event_name":"UserPromptSubmit","prompt":"A test from vpet-notify doctor"}`},
}

// petCheck is doctor's look at the pet: its socket there, a socket of
// yours, accepting; the token file private and not empty.
func petCheck(getenv func(string) string) []install.Finding {
	socket := SocketPath(getenv, runtime.GOOS, "")
	if socket == "" {
		return []install.Finding{{Status: install.Fail, What: "nowhere to find VPet's socket", Fix: "set " + EnvSocket + " to it"}}
	}
	var out []install.Finding
	fail := install.Finding{Status: install.Fail, Fix: "start VPet with its notify sink on, or set " + EnvSocket + " to where it listens"}
	fi, err := os.Stat(socket)
	switch {
	case err != nil:
		fail.What = "VPet's socket " + socket + " is not there"
		out = append(out, fail)
	case fi.Mode()&fs.ModeSocket == 0:
		fail.What, fail.Fix = socket+" is not a socket", "remove it, and restart VPet"
		out = append(out, fail)
	default:
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := transport.Reachable(ctx, socket); err != nil {
			fail.What = "VPet's socket " + socket + ": " + err.Error()
			out = append(out, fail)
		} else {
			out = append(out, install.Finding{Status: install.OK, What: "VPet listens on " + socket})
		}
	}
	if v, _ := lookup(getenv, EnvToken); v != "" {
		return append(out, install.Finding{Status: install.OK, What: "the token comes from the environment"})
	}
	return append(out, tokenFileCheck(TokenFile(getenv, "", socket)))
}

func tokenFileCheck(path string) install.Finding {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return install.Finding{Status: install.Info, What: "no token file yet (" + path + "): the first event creates it, mode 0600"}
	case fi.Mode().Perm()&0o077 != 0:
		return install.Finding{Status: install.Fail, What: fmt.Sprintf("the token file %s is mode %v: others can read the token", path, fi.Mode().Perm()),
			Fix: "chmod 600 " + path}
	}
	if uid, ok := safefile.Owner(fi); ok && uid != os.Getuid() {
		return install.Finding{Status: install.Fail, What: fmt.Sprintf("the token file %s belongs to uid %d", path, uid), Fix: "remove it: the next event creates one of yours"}
	}
	if b, err := os.ReadFile(path); err != nil || strings.TrimSpace(string(b)) == "" {
		return install.Finding{Status: install.Warn, What: "the token file " + path + " is empty or unreadable", Fix: "remove it: the next event creates one"}
	}
	return install.Finding{Status: install.OK, What: "the token file " + path + " is yours and private"}
}
