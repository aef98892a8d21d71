package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Copilot CLI 1.0.102's failed model calls (testdata/agents/copilot-1.0.102,
// api-*): every attempt fires errorOccurred with recoverable true, whether
// it ends the turn (a 400; a 500 after five retries) or is retried and goes
// on. Each is an error when it happens; what follows says the rest.
func TestCopilotFailedTurns(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		kinds string // each payload's kind, in order (- for Unknown)
		msg   string // each error's
	}{
		{"api-error-400", "session_start prompt - error session_end", "scripted failure (HTTP 400)"},
		{"api-error-500", "session_start prompt - error error error error error error session_end", "scripted failure (HTTP 500)"},
		// The retry went on: its tools and its answer follow the error.
		{"api-retry-500", "session_start prompt - error tool_start review tool_end tool_start review tool_end tool_start tool_end turn_end session_end", "scripted failure (HTTP 500)"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			files, _ := filepath.Glob(recorded + "copilot-1.0.102/" + tc.dir + "/*.json")
			var kinds []string
			for _, f := range files {
				ev := parseRecordedCopilot(t, f)
				k := string(ev.Kind)
				if k == "" {
					k = "-"
				}
				kinds = append(kinds, k)
				if ev.Kind != Error {
					continue
				}
				// The API's own message and type, not the JSON they came in
				// nor the JavaScript class (error.name "Error").
				is(t, "Error", ev.Error, tc.msg)
				is(t, "ErrorType", ev.ErrorType, "scripted_error")
			}
			is(t, "kinds", strings.Join(kinds, " "), tc.kinds)
		})
	}
	end := parseRecordedCopilot(t, recorded+"copilot-1.0.102/api-error-400/05-sessionEnd.json")
	is(t, "sessionEnd Reason", end.Reason, "error")
}

// parseRecordedCopilot parses a recorded payload as install's settings line
// hands it over: --agent copilot, the event by its name (the file's).
func parseRecordedCopilot(t *testing.T, file string) Event {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(file), ".json")
	name = name[strings.Index(name, "-")+1:]
	return Parse(Input{Agent: "copilot", Payload: b, Args: []string{name}})
}

// An error's message that is not JSON is kept whole, and the class name
// "Error" is no type.
func TestCopilotErrorText(t *testing.T) {
	for _, tc := range []struct{ payload, msg, typ string }{
		{`{"error":{"message":"model overloaded","name":"APIError"}}`, "model overloaded", "APIError"},
		{`{"error":{"message":"socket hang up","name":"Error"}}`, "socket hang up", ""},
		// Anthropic's whole body, as another provider may pass it.
		{`{"error":{"message":"{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}","name":"Error"}}`, "slow down", "rate_limit_error"},
	} {
		ev := Parse(Input{Agent: "copilot", Payload: []byte(tc.payload), Args: []string{"errorOccurred"}})
		is(t, "Kind", ev.Kind, Error)
		is(t, "Error", ev.Error, tc.msg)
		is(t, "ErrorType", ev.ErrorType, tc.typ)
	}
}
