package coucou

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A Decision is the app's answer to an approval request.
type Decision string

// The decisions. None is "no decision": the agent asks in its own terminal.
const (
	None   Decision = ""
	Allow  Decision = "allow"
	Always Decision = "always"
	Deny   Decision = "deny"
	Ask    Decision = "ask"
	// Answer is an answer to Claude Code's AskUserQuestion (see UpdatedInput).
	Answer Decision = "answer"
)

// ParseDecision reads the app's reply line. The macOS app answers JSON
// ({"permissionDecision":"allow"}), the Windows and Linux app a bare word
// (allow or deny); both are accepted. A question's answer is Answer: the
// macOS app's {"permissionDecision":"answer",…}, the others' {"answers":…}.
// Anything else is no decision.
func ParseDecision(line []byte) Decision {
	line = bytes.TrimSpace(line)
	switch d := Decision(strings.ToLower(string(line))); d {
	case Allow, Always, Deny:
		return d
	}
	var reply struct {
		PermissionDecision *string         `json:"permissionDecision"`
		Answers            json.RawMessage `json:"answers"`
	}
	if json.Unmarshal(line, &reply) != nil {
		return None
	}
	if reply.PermissionDecision == nil {
		if len(reply.Answers) > 0 {
			return Answer
		}
		return None
	}
	switch d := Decision(*reply.PermissionDecision); d {
	case Allow, Always, Deny, Ask, Answer:
		return d
	}
	return None
}

// TakesDecisions reports whether the app shows an approval card for the
// agent (reply.rs takes_decisions; hermes only when it says it can hear
// the answer). Other agents get an immediate "ask" from the app, so there
// is nothing to wait for.
func TakesDecisions(agent string, hermesTransport bool) bool {
	switch agent {
	case "", "claude", "claude-desktop", "codex", "copilot", "muse":
		return true
	case "hermes":
		return hermesTransport
	}
	return false
}

const (
	claudeAllow = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
	claudeDeny  = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Coucou"}}}`
)

// Reply is what the relay prints for the agent: the decision in the
// agent's own format on a permission request, and the neutral answer some
// agents expect on every hook (a JSON object on stdout, else they warn).
// "" prints nothing. suggestions is Claude's
// permission_suggestions (raw JSON), which "always" makes permanent.
func Reply(agent, event string, d Decision, suggestions []byte) string {
	if event == "PermissionRequest" {
		switch agent {
		case "", "claude", "claude-desktop":
			switch d {
			case Allow:
				return claudeAllow
			case Always:
				if len(bytes.TrimSpace(suggestions)) > 0 && json.Valid(suggestions) {
					return `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":` +
						string(compact(suggestions)) + `}}}`
				}
				return claudeAllow
			case Deny:
				return claudeDeny
			}
			return ""
		case "codex": // Codex fails a hook that answers updatedPermissions
			switch d {
			case Allow, Always:
				return claudeAllow
			case Deny:
				return claudeDeny
			}
			return ""
		case "copilot":
			// Copilot CLI 1.0.102 reads {"behavior","message"} and ignores
			// permissionDecision; with no answer it decides as it would
			// without the hook (its own prompt, or a denial in -p).
			switch d {
			case Allow, Always:
				return `{"behavior":"allow"}`
			case Deny:
				return `{"behavior":"deny","message":"Denied from Coucou"}`
			}
			return ""
		case "muse":
			switch d {
			case Allow, Always:
				return `{"permissionDecision":"allow"}`
			case Deny:
				return `{"permissionDecision":"deny"}`
			}
			return ""
		case "hermes":
			switch d {
			case Allow:
				return `{"choice":"once"}`
			case Always:
				return `{"choice":"always"}`
			case Deny:
				return `{"choice":"deny"}`
			}
			return ""
		}
	}
	switch agent {
	case "gemini", "copilot", "muse": // they read a JSON object after every hook
		return "{}"
	case "antigravity":
		if event == "PreToolUse" {
			// {} reads as a denial there; ask keeps Antigravity's own prompt.
			return `{"decision":"ask"}`
		}
		return "{}"
	}
	return ""
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}
