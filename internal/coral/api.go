package coral

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// Environment variables of Coral's API, as its own hooks read them.
const (
	EnvURL  = "CORAL_URL"  // the server, e.g. http://127.0.0.1:8455 (Coral exports it to its agents)
	EnvPort = "CORAL_PORT" // else http://localhost:$CORAL_PORT
)

// DefaultPort is Coral's.
const DefaultPort = "8420"

// Event types this package posts. Coral's Go log parser reads no CONFIDENCE
// tag, so a confidence reaches the dashboard only as an event; a goal event
// becomes the card's summary when the log has no SUMMARY (and goes on the
// activity timeline).
const (
	EventConfidence = "confidence"
	EventGoal       = "goal"
)

// apiBudget bounds one post: Coral answers on loopback in milliseconds, and
// the log line, already written, is what matters.
const apiBudget = time.Second

// Base is Coral's API base URL: CORAL_URL, else localhost on CORAL_PORT
// (8420). Only loopback is ever contacted (httpsend refuses anything else).
func Base(getenv func(string) string) string {
	if u := strings.TrimSpace(getenv(EnvURL)); u != "" {
		return strings.TrimRight(u, "/")
	}
	port := strings.TrimSpace(getenv(EnvPort))
	if port == "" {
		port = DefaultPort
	}
	return "http://localhost:" + port
}

// eventBody is what Coral's CreateEvent takes: event_type and summary are
// required (else 400); session_id, the uuid, makes the live session's own
// agent name win over the one in the URL.
type eventBody struct {
	EventType string `json:"event_type"`
	Summary   string `json:"summary"`
	SessionID string `json:"session_id"`
}

// PostEvent is the request that records one event on the session's
// activity timeline: POST /api/sessions/live/<agent name>/events, the agent
// name being the working directory's base name, as Coral's own hooks send
// it.
func PostEvent(base, cwd string, s Session, eventType, summary string) transport.Request {
	name := s.Name
	if cwd != "" {
		if b := filepath.Base(strings.TrimRight(cwd, `/\`)); b != "." && b != string(filepath.Separator) && b != "" {
			name = b
		}
	}
	body, _ := json.Marshal(eventBody{EventType: eventType, Summary: summary, SessionID: s.UUID})
	return within{apiBudget, httpsend.Request{
		URL:      base + "/api/sessions/live/" + url.PathEscape(name) + "/events",
		Header:   httpsend.Header{"Content-Type": {"application/json"}},
		Body:     body,
		MaxReply: 4 << 10,
	}}
}

// within is a request with a budget of its own inside the invocation's.
type within struct {
	d time.Duration
	transport.Request
}

func (w within) Do(ctx context.Context) (transport.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, w.d)
	defer cancel()
	return w.Request.Do(ctx)
}

// Confidences finds the CONFIDENCE tags an agent wrote in its message (Coral
// asks models to, and its Go parser ignores them in the log): level Low or
// High, and the reason. At most max, the last ones.
func Confidences(msg string, max int) []Tag {
	const open = "||PULSE:CONFIDENCE"
	var out []Tag
	for {
		i := strings.Index(msg, open)
		if i < 0 {
			break
		}
		msg = msg[i+len(open):]
		body, rest, ok := strings.Cut(msg, "||")
		if !ok {
			break
		}
		msg = rest
		if t, ok := ConfidenceTag(body); ok {
			out = append(out, t)
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// ConfidenceTag reads "Low reason" or "high reason": the level is Low or
// High, whatever its case, and the reason must say something.
func ConfidenceTag(s string) (Tag, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return Tag{}, false
	}
	var level string
	switch strings.ToLower(f[0]) {
	case "low":
		level = "Low"
	case "high":
		level = "High"
	default:
		return Tag{}, false
	}
	reason := clip(Clean(strings.Join(f[1:], " ")), MaxConfidence)
	if reason == "" {
		return Tag{}, false
	}
	return Tag{Confidence, level + " " + reason}, true
}
