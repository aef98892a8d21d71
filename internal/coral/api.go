package coral

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
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

// Base is Coral's API base URL from the environment alone: CORAL_URL, else
// localhost on CORAL_PORT (8420). Only loopback is ever contacted (httpsend
// refuses anything else).
func Base(getenv func(string) string) string {
	base, _ := fromEnv(getenv)
	return base
}

func fromEnv(getenv func(string) string) (base, from string) {
	if u := strings.TrimSpace(getenv(EnvURL)); u != "" {
		return strings.TrimRight(u, "/"), EnvURL
	}
	if port := strings.TrimSpace(getenv(EnvPort)); port != "" {
		return "http://localhost:" + port, EnvPort
	}
	return "http://localhost:" + DefaultPort, ""
}

// Coral's data directory: --home, else these variables, else ~/.coral.
const (
	EnvDataDir = "CORAL_DATA_DIR"
	EnvDir     = "CORAL_DIR"
)

// Locate finds the server of the Coral running session s, the way Coral's
// own tools do, since Coral passes neither CORAL_URL nor CORAL_PORT to the
// agents it launches: CORAL_URL or CORAL_PORT when they are set (Coral's
// hooks read them); else the server_url that Coral writes, when it does not
// listen on 8420, into the session's board state file,
// <data dir>/board_state_<session>.json (what coral-board and Coral's
// message-check hook read); else CORAL_PORT in the environment of the
// session's tmux session or server, which Coral's tmux server inherits from
// the Coral that started it; else 8420. from says which, for doctor and the
// debug log ("" for the default).
func Locate(ctx context.Context, getenv func(string) string, s Session) (base, from string) {
	if base, from = fromEnv(getenv); from != "" {
		return base, from
	}
	if s.Name != "" {
		p := filepath.Join(DataDir(getenv), "board_state_"+strings.NewReplacer("/", "_", `\`, "_").Replace(s.Name)+".json")
		if b, err := os.ReadFile(p); err == nil {
			var st struct {
				ServerURL string `json:"server_url"`
			}
			if json.Unmarshal(b, &st) == nil && strings.TrimSpace(st.ServerURL) != "" {
				return strings.TrimRight(strings.TrimSpace(st.ServerURL), "/"), p
			}
		}
		if getenv(EnvPane) != "" && getenv("TMUX") != "" {
			for _, scope := range []string{"-t", "-g"} {
				if port := tmuxPort(ctx, scope, s.Name); port != "" {
					return "http://localhost:" + port, "tmux " + strings.TrimPrefix(scope, "-") + " environment"
				}
			}
		}
	}
	return base, ""
}

// DataDir is Coral's data directory: CORAL_DATA_DIR, CORAL_DIR, ~/.coral.
func DataDir(getenv func(string) string) string {
	for _, k := range []string{EnvDataDir, EnvDir} {
		if d := getenv(k); d != "" {
			return d
		}
	}
	return filepath.Join(agent.UserHome(getenv), ".coral")
}

// tmuxPort reads CORAL_PORT from tmux's environment: the session's (-t) or
// the server's (-g). tmux prints NAME=value, -NAME for a removed one.
func tmuxPort(ctx context.Context, scope, session string) string {
	ctx, cancel := context.WithTimeout(ctx, tmuxBudget)
	defer cancel()
	argv := []string{"tmux", "show-environment", "-g", EnvPort}
	if scope == "-t" {
		argv = []string{"tmux", "show-environment", "-t", session, EnvPort}
	}
	r, err := transport.Command{Argv: argv}.Do(ctx)
	if err != nil {
		return ""
	}
	port, ok := strings.CutPrefix(strings.TrimSpace(string(r.Body)), EnvPort+"=")
	if !ok || port == "" || strings.Trim(port, "0123456789") != "" {
		return ""
	}
	return port
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
	body, _ := json.Marshal(eventBody{EventType: eventType, Summary: summary, SessionID: s.UUID})
	return transport.Within(httpsend.Request{
		URL:      base + "/api/sessions/live/" + url.PathEscape(agentName(cwd, s)) + "/events",
		Header:   httpsend.Header{"Content-Type": {"application/json"}},
		Body:     body,
		MaxReply: 4 << 10,
	}, apiBudget)
}

// agentName is the path's agent name: the working directory's base name, as
// Coral's own hooks send it, else the session's name. (Coral takes the name
// it has for a live session_id it knows over the path's.)
func agentName(cwd string, s Session) string {
	if cwd != "" {
		if b := filepath.Base(strings.TrimRight(cwd, `/\`)); b != "." && b != string(filepath.Separator) && b != "" {
			return b
		}
	}
	return s.Name
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
