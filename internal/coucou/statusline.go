package coucou

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/transport"
)

// Status-line mode. Claude Code hands its status line command the session's
// JSON on stdin and shows what the command prints. nb-hook --statusline
// passes the plan limits in it (rate_limits) to the app's plan-usage pill,
// and runs the status line the user had before with the same input, printing
// what it prints, so installing it costs nobody their status line.
const (
	// StatusLineFlag makes nb-hook a status line command.
	StatusLineFlag = "--statusline"
	// PreviousFlag names the status line nb-hook chains.
	PreviousFlag = "--previous"
	// previousFile is where the Coucou app keeps the status line it
	// replaced, beside its relay: read when no --previous is given.
	previousFile = "statusline-previous.json"
	// envChained marks the chained command's environment: a previous status
	// line that runs nb-hook --statusline again must not chain again.
	envChained = "COUCOU_STATUSLINE_CHAINED"
	// maxStatusLine is what is kept of the previous status line's output.
	maxStatusLine = 64 << 10
)

// StatusLine is the line the app reads for the plan-usage pill: the limits
// and the session they came from, nothing else of the input (no cwd, no
// model, no transcript). The macOS app reads it by coucou_kind, the Linux
// and Windows app by hook_event_name; both are set. Without limits (API-key
// users have none) there is nothing to send.
func StatusLine(input []byte) (line []byte, ok bool) {
	in := gjson.ParseBytes(bytes.TrimPrefix(input, []byte("\xEF\xBB\xBF")))
	limits := in.Get("rate_limits")
	if !in.IsObject() || !limits.IsObject() {
		return nil, false
	}
	var sid any
	if s := in.Get("session_id"); s.Exists() {
		sid = s.Value()
	}
	var rl any
	dec := json.NewDecoder(bytes.NewReader([]byte(limits.Raw)))
	dec.UseNumber()
	if dec.Decode(&rl) != nil {
		return nil, false
	}
	c := capper{field: MaxField}
	return encode(c.object(map[string]any{
		"coucou_kind":     "statusline",
		"hook_event_name": "StatusLine",
		"session_id":      sid,
		"rate_limits":     rl,
	}, false, "")), true
}

func (c *relayCLI) statusLine(inv *hook.Invocation) error {
	inv.Observe(agent.Event{Agent: agent.Claude, Name: "StatusLine"})
	in := inv.Stdin()
	if line, ok := StatusLine(in.Data); ok {
		path := SocketPath(Where{GOOS: runtime.GOOS, Getenv: inv.Getenv, Exists: exists,
			UID: os.Getuid(), TmpDir: os.TempDir(), SID: userSID()})
		// On an agent's machine whose app is on a desktop, the line crosses
		// to it through the relay, as the hooks' lines do.
		send := transport.SocketLine{Path: path, Line: line, ConnectWithin: connectWithin}
		inv.Send(crossing(send, "StatusLine", gjson.GetBytes(in.Data, "session_id").String(), false))
	} else {
		inv.Notef("status line input without rate_limits: nothing for the app")
	}
	prev := c.Previous
	if prev == "" {
		prev = savedPrevious()
	}
	switch {
	case prev == "":
		return nil
	case inv.Getenv(envChained) != "":
		inv.Notef("%s is set: this status line is the one chained, it chains nothing", envChained)
		return nil
	}
	sh := shell()
	if sh == nil {
		inv.Notef("no shell to run the previous status line with")
		return nil
	}
	r, err := inv.Send(transport.Filter{Argv: append(sh, prev), Input: in.Data, Env: []string{envChained + "=1"}, MaxOut: maxStatusLine})
	if err == nil && len(r.Body) > 0 {
		inv.Reply(r.Body)
	}
	return nil
}

// savedPrevious is the command the Coucou app saved beside the relay when
// it took the status line ({"command": …}).
func savedPrevious() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(exe), previousFile))
	if err != nil {
		return ""
	}
	return gjson.GetBytes(b, "command").Str
}

// shell is what Claude Code runs a status line command with: sh -c, and on
// Windows Git Bash's bash -c (nothing else reads such a command as written).
func shell() []string {
	if runtime.GOOS != "windows" {
		return []string{"/bin/sh", "-c"}
	}
	if p := os.Getenv("CLAUDE_CODE_GIT_BASH_PATH"); p != "" {
		return []string{p, "-c"}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return []string{p, "-c"}
	}
	return nil
}
