package pulse

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/transcript"
)

// formats are the agents whose transcripts hold their token usage.
var formats = map[agent.Agent]transcript.Format{
	agent.Claude:  transcript.Claude,
	agent.Codex:   transcript.Codex,
	agent.Gemini:  transcript.Gemini,
	agent.Copilot: transcript.Copilot,
}

// transcriptOf is the file that holds the session's usage, and its format;
// "" when the agent writes none that is known. Hooks give the path
// (transcript_path; Copilot's agentStop transcriptPath); where a payload
// does not, it follows from the session id: Copilot CLI keeps
// $COPILOT_HOME/session-state/<id>/events.jsonl, and Codex's notify program
// (which names the thread only) finds its rollout by the id's date.
func transcriptOf(ev agent.Event, getenv func(string) string) (string, transcript.Format) {
	f, ok := formats[ev.Agent]
	if !ok {
		return "", 0
	}
	if ev.Transcript != "" {
		return ev.Transcript, f
	}
	switch ev.Agent {
	case agent.Copilot:
		home := agentHome(getenv, "COPILOT_HOME", ".copilot")
		if home == "" || !safeID(ev.Session) {
			return "", f
		}
		return filepath.Join(home, "session-state", ev.Session, "events.jsonl"), f
	case agent.Codex:
		return codexRollout(agentHome(getenv, "CODEX_HOME", ".codex"), ev.Session), f
	}
	return "", f
}

// agentHome is an agent's config home: $VAR, else ~/<dir>.
func agentHome(getenv func(string) string, env, dir string) string {
	if d := getenv(env); d != "" {
		return d
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, dir)
	}
	return ""
}

// safeID is a session id that can name a directory: no separator, no dot
// path.
func safeID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}

// codexRollout finds the rollout of a Codex thread:
// <home>/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl. A UUIDv7 id
// starts with its creation time in milliseconds, so only that day's
// directory (and its neighbours, for time zones) is listed.
func codexRollout(home, id string) string {
	if home == "" || !safeID(id) {
		return ""
	}
	ms, ok := uuidV7Time(id)
	if !ok {
		return ""
	}
	t := time.UnixMilli(ms)
	for _, d := range []time.Time{t, t.UTC(), t.Add(-24 * time.Hour), t.Add(24 * time.Hour)} {
		dir := filepath.Join(home, "sessions", d.Format("2006"), d.Format("01"), d.Format("02"))
		if m, _ := filepath.Glob(filepath.Join(dir, "rollout-*-"+id+".jsonl")); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// uuidV7Time is the creation time, in Unix milliseconds, of a UUIDv7.
func uuidV7Time(id string) (int64, bool) {
	if !isUUID(id) || id[14] != '7' {
		return 0, false
	}
	b, err := hex.DecodeString(id[:8] + id[9:13])
	if err != nil {
		return 0, false
	}
	var ms int64
	for _, c := range b {
		ms = ms<<8 | int64(c)
	}
	return ms, true
}

// isUUID is the 8-4-4-4-12 hex form.
func isUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
			return false
		}
	}
	return true
}

// short is the session id as Pulse's slot names it: unique per session for
// every id shape. Claude Code's ids (UUIDv4, random throughout) keep the
// reference adapter's first segment (d63ac083 for d63ac083-c016-…). A
// UUIDv7 (Codex) starts with a timestamp shared by every session of the
// same ~65 s: its last 8 hex digits, which are random, name it instead.
// Any other id with a dash (whose first segment need not be unique) is 8
// hex digits of its hash; one without a dash is kept whole.
func short(session string) string {
	switch {
	case !strings.Contains(session, "-"):
		return session
	case isUUID(session) && session[14] == '4':
		return session[:8]
	case isUUID(session) && session[14] == '7':
		return strings.ToLower(session[28:])
	}
	h := fnv.New32a()
	h.Write([]byte(session))
	return fmt.Sprintf("%08x", h.Sum32())
}
