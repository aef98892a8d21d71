// Package consent is noctalia claude-companion's consent panel, whole: the
// gate its hooks/consent.py runs as a second PreToolUse hook of Claude
// Code, here for every agent whose hooks can answer an approval, on the
// panel's own files and words, so that the panel (and its buttons, which
// run the plugin's own `consent.py reply`) cannot tell hookwire's requests
// from the plugin's:
//
//   - the mode: $XDG_RUNTIME_DIR/claude-companion/mode holds off, learn or
//     enforce; missing, unknown, or no XDG_RUNTIME_DIR is off (never a /tmp
//     fallback, where any local process could drop an answer);
//   - the allowlist: ${XDG_STATE_HOME:-~/.local/state}/noctalia/claude-companion/allow.jsonl,
//     rows {"key","added"}, keys exact (key.go); learn appends
//     {"key","tool","description","at"} rows to learn.jsonl beside the mode,
//     which `consent.py promote` folds into it;
//   - enforce: a request <id>.req in the consent directory (0700), a poke
//     (`consent_request <id>,<short>`) to pulse-svc and `panel-open` to the
//     panel through `noctalia msg`, then <id>.res polled until a deadline
//     inside the hook's timeout; the nonce echoed decides whether the
//     answer counts (gate.go).
//
// Source: noctalia-dev/community-plugins claude-companion/hooks/consent.py,
// consent.luau and tests/consent_spec.py at 12079e67 (claude-companion 1.5),
// docs/reference/pulse-and-claude-code.md §1.5. The byte-exact behaviour is
// pinned by tests whose fixtures were recorded from running that consent.py.
package consent

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The panel's names (consent.py's PLUGIN and PANEL).
const (
	Panel = "lowcache/claude-companion:consent"
	// RequestEvent is the pulse-svc control event that queues a request.
	RequestEvent = "consent_request"
)

// Mode is the panel's consent mode.
type Mode string

// The modes. Anything else the file holds is Off.
const (
	Off     Mode = "off"
	Learn   Mode = "learn"
	Enforce Mode = "enforce"
)

// Time limits: consent.py's. The wait sits under the 120 s hook timeout
// install writes (Timeout): reaching it, the hook exits with no decision
// rather than being killed mid-reply.
const (
	// Poke bounds each `noctalia msg` (the request, the panel's opening).
	Poke = 3 * time.Second
	// Wait is how long the answer is polled for, after the pokes.
	Wait = 110 * time.Second
	// Hold is the hook's whole budget for an approval: both pokes and the
	// wait, with a margin, under Timeout.
	Hold = 2*Poke + Wait + 2*time.Second
	// Timeout is the hook timeout install writes on each hook the panel
	// asks on (the plugin's installer writes and checks the same).
	Timeout = 120 * time.Second
	poll    = 75 * time.Millisecond
)

// Dir is $XDG_RUNTIME_DIR/claude-companion, or "" without XDG_RUNTIME_DIR
// (the gate is then off: consent.py never falls back to /tmp).
func Dir(getenv func(string) string) string {
	rt := getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return ""
	}
	return filepath.Join(rt, "claude-companion")
}

// ModeOf reads the panel's mode. Off, the common case, costs one failed
// open: no file, no mode.
func ModeOf(getenv func(string) string) Mode {
	dir := Dir(getenv)
	if dir == "" {
		return Off
	}
	b, err := readSmall(filepath.Join(dir, "mode"), 64)
	if err != nil {
		return Off
	}
	switch m := Mode(strings.TrimSpace(string(b))); m {
	case Learn, Enforce:
		return m
	}
	return Off
}

// StateDir is where the allowlist is: ${XDG_STATE_HOME:-~/.local/state}/noctalia/claude-companion.
func StateDir(getenv func(string) string) string {
	base := getenv("XDG_STATE_HOME")
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "noctalia", "claude-companion")
}
