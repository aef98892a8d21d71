package coucou

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hookwire/hookwire/internal/agent"
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

// TakesDecisions reports whether an approval card for ev is worth holding
// the hook for: the agent reads a person's answer from the hook (its
// dialect's Approves). For the others the app answers "ask" at once
// (reply.rs takes_decisions), so there is nothing to wait for.
func TakesDecisions(ev agent.Event) bool {
	d, ok := agent.For(ev.Agent)
	return ok && d.Approves != nil && d.Approves(ev)
}

// Reply is what the relay prints for the agent: the decision in the
// agent's own format, or the neutral answer some agents expect after every
// hook; "" prints nothing. suggestions are the agent's suggested rules
// (raw JSON), which "always" makes permanent. A question's answer prints
// only through UpdatedInput (relay.go).
func Reply(ev agent.Event, d Decision, suggestions []byte) string {
	dl, ok := agent.For(ev.Agent)
	if !ok || dl.Reply == nil {
		return ""
	}
	r := agent.Reply{Decision: agent.Decision(d), Suggestions: suggestions, By: "Coucou"}
	if d == Answer {
		r.Decision = agent.None
	}
	return dl.Reply(ev.Name, r)
}
