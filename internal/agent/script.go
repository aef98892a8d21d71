package agent

import (
	"encoding/json"
	"strings"
)

// Script is what a shell script or CI job says with flags, the generic
// dialect's fields: the event itself is the positional argument, a canonical
// kind (turn_end, error, …). Every binary takes the same flags (internal/hook, lifecycle.go).
type Script struct {
	Session string // --session
	Message string // --message: the prompt, the result, the notification or the error
	Tool    string // --tool
	Input   string // --input: the tool's input, a JSON object
	Cwd     string // --cwd
}

// EnvSession is the suite's own variable for a script's session, for a
// script that sends several events and wants them on one card.
const EnvSession = "HOOKWIRE_SESSION"

// ciJobs are the CI systems' job ids, first match wins: a job is a session,
// and its steps all land on it. Each row needs all of its variables set.
var ciJobs = []struct {
	prefix string
	vars   []string
}{
	{"github", []string{"GITHUB_RUN_ID", "GITHUB_JOB"}},
	{"gitlab", []string{"CI_JOB_ID"}},
	{"buildkite", []string{"BUILDKITE_JOB_ID"}},
	{"circleci", []string{"CIRCLE_WORKFLOW_JOB_ID"}},
	{"azure", []string{"SYSTEM_JOBID"}},
	{"jenkins", []string{"BUILD_TAG"}},
	{"travis", []string{"TRAVIS_JOB_ID"}},
	{"bitbucket", []string{"BITBUCKET_STEP_UUID"}},
	{"drone", []string{"DRONE_BUILD_NUMBER", "DRONE_STEP_NUMBER"}},
}

// terminals are the terminals and multiplexers that name the pane a script
// runs in, first match wins; without one, the controlling terminal's device
// (Input.Terminal) names it. tmux's pane ids are per server: TMUX holds the
// server's socket, pid and session, and its pid tells servers apart.
var terminals = []struct {
	prefix string
	vars   []string
}{
	{"tmux", []string{"TMUX", "TMUX_PANE"}},
	{"zellij", []string{"ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID"}},
	{"wezterm", []string{"WEZTERM_PANE"}},
	{"kitty", []string{"KITTY_PID", "KITTY_WINDOW_ID"}},
	{"screen", []string{"STY", "WINDOW"}},
	{"iterm", []string{"ITERM_SESSION_ID"}},
	{"terminal", []string{"TERM_SESSION_ID"}},
	{"wt", []string{"WT_SESSION"}},
}

// ScriptSession is the session of a script's event: --session, else
// HOOKWIRE_SESSION, else the CI job, else the terminal pane, else the
// controlling terminal; "" when none says. A derived id joins its parts with
// dots ("github.4711.build", "tmux.812.3", "tty.pts.4") and holds nothing but
// [A-Za-z0-9._-]: Pulse's CSV keeps no other byte, and Trail Boss drops a
// session named like a pane (%3).
func ScriptSession(flag string, getenv func(string) string, terminal func() string) string {
	if flag != "" {
		return flag
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if s := strings.TrimSpace(getenv(EnvSession)); s != "" {
		return s
	}
	// A script an agent runs (from a hook, or its shell tool) lands on the
	// agent's session when the environment names it.
	for _, v := range sessionEnvs() {
		if s := strings.TrimSpace(getenv(v)); s != "" {
			return s
		}
	}
	for _, table := range [][]struct {
		prefix string
		vars   []string
	}{ciJobs, terminals} {
	rows:
		for _, row := range table {
			parts := []string{row.prefix}
			for _, v := range row.vars {
				val := getenv(v)
				if v == "TMUX" {
					val = field(val, ',', 1) // the server's pid
				}
				if val = idPart(val); val == "" {
					continue rows
				}
				parts = append(parts, val)
			}
			return strings.Join(parts, ".")
		}
	}
	if terminal != nil {
		if t := idPart(strings.TrimPrefix(terminal(), "/dev/")); t != "" {
			return "tty." + t
		}
	}
	return ""
}

// idPart keeps the letters, digits, dots, dashes and underscores of s,
// turning the rest into dots, trimmed of dots at either end.
func idPart(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			b[i] = '.'
		}
	}
	return strings.Trim(string(b), ".")
}

func field(s string, sep byte, n int) string {
	for range n {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			return ""
		}
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, sep); i >= 0 {
		s = s[:i]
	}
	return s
}

// ScriptVars are the environment variables ScriptSession reads: a test
// clears them, so that the CI it runs in does not name its sessions.
func ScriptVars() []string {
	vars := append([]string{EnvSession}, sessionEnvs()...)
	for _, row := range append(ciJobs[:len(ciJobs):len(ciJobs)], terminals...) {
		vars = append(vars, row.vars...)
	}
	return vars
}

// script fills a generic event from the flags: what the script says goes
// where the kind puts it, as an agent's payload would have it.
func script(ev *Event, in Input) {
	s := in.Script
	ev.Session = ScriptSession(s.Session, in.Getenv, in.Terminal)
	if s.Cwd != "" {
		ev.Cwd = s.Cwd
	}
	ev.Tool = s.Tool
	if in := strings.TrimSpace(s.Input); strings.HasPrefix(in, "{") && json.Valid([]byte(in)) { // linear, bounded depth (Salvage)
		ev.ToolInput = json.RawMessage(in)
	}
	switch ev.Kind {
	case Prompt:
		ev.Prompt = s.Message
	case Error:
		ev.Error = s.Message
	default:
		ev.Message = s.Message
	}
}

// sessionEnvs are the variables in which agents name their session, in
// registry order.
func sessionEnvs() []string {
	var out []string
	for _, d := range registry {
		if d.Paths.SessionEnv != "" {
			out = append(out, d.Paths.SessionEnv)
		}
	}
	return out
}
