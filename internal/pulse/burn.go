package pulse

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/transcript"
)

// transcriptOf is the session's transcript and its format (agent.TranscriptOf).
func transcriptOf(ev agent.Event, getenv func(string) string) (string, transcript.Format) {
	return agent.TranscriptOf(ev, getenv)
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
	case agent.IsUUID(session) && session[14] == '4':
		return session[:8]
	case agent.IsUUID(session) && session[14] == '7':
		return strings.ToLower(session[28:])
	}
	h := fnv.New32a()
	h.Write([]byte(session))
	return fmt.Sprintf("%08x", h.Sum32())
}
