package vpet

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Environment variables. Each VPET_ name has an AGENTICA_ twin, agentica's
// own name for the same setting, so that a user who configured agentica's
// sink needs nothing new. Values are stripped of surrounding white space and
// a blank one counts as unset, as in agentica.
const (
	EnvSocket    = "VPET_NOTIFY_SOCKET"
	EnvToken     = "VPET_NOTIFY_TOKEN"
	EnvTokenFile = "VPET_NOTIFY_TOKEN_FILE"
	EnvEvents    = "VPET_NOTIFY_EVENTS"
)

// agenticaNames are the twins.
var agenticaNames = map[string]string{
	EnvSocket:    "AGENTICA_NOTIFY_SOCKET",
	EnvToken:     "AGENTICA_NOTIFY_TOKEN",
	EnvTokenFile: "AGENTICA_NOTIFY_TOKEN_FILE",
}

// lookup returns the first value of name and its agentica twin that is not
// blank, stripped, with the name it came from.
func lookup(getenv func(string) string, name string) (value, from string) {
	for _, n := range []string{name, agenticaNames[name]} {
		if n == "" {
			continue
		}
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v, n
		}
	}
	return "", ""
}

// TokenFileName is the token file's name beside the socket.
const TokenFileName = "notify.token"

// SocketPath resolves the socket: flag, else VPET_NOTIFY_SOCKET or
// AGENTICA_NOTIFY_SOCKET, else where VPet puts it: ~/Library/Application
// Support/VPet/notify.sock on macOS (agentica's default). VPet is a macOS
// app; elsewhere $XDG_RUNTIME_DIR/vpet/notify.sock is this suite's choice,
// the per-user runtime directory, for a pet that speaks the same protocol.
// "" when nothing says where.
func SocketPath(getenv func(string) string, goos, flag string) string {
	if flag != "" {
		return expandHome(getenv, flag)
	}
	if v, _ := lookup(getenv, EnvSocket); v != "" {
		return expandHome(getenv, v)
	}
	// The defaults are goos's, macOS's and Linux's: paths with slashes
	// (package path), whatever system computes them.
	if goos == "darwin" {
		if home := getenv("HOME"); path.IsAbs(home) {
			return path.Join(home, "Library", "Application Support", "VPet", "notify.sock")
		}
		return ""
	}
	if run := getenv("XDG_RUNTIME_DIR"); path.IsAbs(run) {
		return path.Join(run, "vpet", "notify.sock")
	}
	return ""
}

// TokenFile resolves the token file: flag, else VPET_NOTIFY_TOKEN_FILE or
// AGENTICA_NOTIFY_TOKEN_FILE, else notify.token beside the socket.
func TokenFile(getenv func(string) string, flag, socket string) string {
	if flag != "" {
		return expandHome(getenv, flag)
	}
	if v, _ := lookup(getenv, EnvTokenFile); v != "" {
		return expandHome(getenv, v)
	}
	if socket == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(socket), TokenFileName)
}

// expandHome expands a leading ~ as agentica's os.path.expanduser does for
// the current user; a settings file or an env var often holds one unexpanded.
func expandHome(getenv func(string) string, p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home := getenv("HOME")
	if home == "" {
		return p
	}
	return filepath.Join(home, p[1:])
}

// Switches says which events are on. The zero value has every event on.
type Switches struct {
	off map[string]bool
}

// On reports whether event is switched on.
func (s Switches) On(event string) bool { return !s.off[event] }

// Any reports whether any of events is on.
func (s Switches) Any(events ...string) bool {
	return slices.ContainsFunc(events, s.On)
}

// ParseSwitches reads --events / VPET_NOTIFY_EVENTS: a comma- or
// space-separated list. Plain names (or name=on) switch on only what is
// listed; -name, !name or name=off switch one off and leave the rest on.
// `run.*` and `tool.*` name a family, `all` and `none` everything. Words it
// does not know are returned, so that the debug log can name them, and are
// otherwise ignored: a typo must not silence the pet.
func ParseSwitches(spec string) (s Switches, unknown []string) {
	s.off = map[string]bool{}
	var only, off []string
	allow := false // a plain name or "none" was given: only what is listed is on
	for _, w := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		on := true
		name, val, hasVal := strings.Cut(w, "=")
		if hasVal {
			switch strings.ToLower(val) {
			case "on", "true", "yes", "1":
			case "off", "false", "no", "0":
				on = false
			default:
				unknown = append(unknown, w)
				continue
			}
		} else if n, ok := strings.CutPrefix(name, "-"); ok {
			name, on = n, false
		} else if n, ok := strings.CutPrefix(name, "!"); ok {
			name, on = n, false
		}
		name = strings.ToLower(name)
		if name == "none" && on && !hasVal {
			allow = true
			continue
		}
		events := expand(name)
		switch {
		case events == nil:
			unknown = append(unknown, w)
		case on:
			allow, only = true, append(only, events...)
		default:
			off = append(off, events...)
		}
	}
	for _, e := range Events {
		if allow && !slices.Contains(only, e) || slices.Contains(off, e) {
			s.off[e] = true
		}
	}
	return s, unknown
}

// expand names the events a switch word stands for, or nil.
func expand(name string) []string {
	switch name {
	case "all", "*":
		return Events
	case "run.*", "run":
		return Events[:4]
	case "tool.*", "tool":
		return Events[4:]
	}
	if slices.Contains(Events, name) {
		return []string{name}
	}
	return nil
}

// String lists the events that are off, for the log.
func (s Switches) String() string {
	var off []string
	for _, e := range Events {
		if !s.On(e) {
			off = append(off, e)
		}
	}
	return fmt.Sprintf("off: %s", strings.Join(off, ", "))
}
