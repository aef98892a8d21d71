package coucou

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/hookwire/hookwire/internal/agent"
)

// KindAsk tags the line of an AskUserQuestion sent by the --ask hook, as the
// macOS relay does, so the app shows a question card, not an approval.
const KindAsk = "ask_user_question"

// question is one entry of AskUserQuestion's tool_input.questions.
type question struct {
	Question    string   `json:"question"`
	MultiSelect bool     `json:"multiSelect"`
	Options     []option `json:"options"`
}

type option struct {
	Label string `json:"label"`
}

// UpdatedInput turns the app's answer to an AskUserQuestion into the
// updatedInput Claude Code takes: the tool's input exactly as Claude sent
// it (not the capped copy the app saw) with an "answers" map from each
// question's text to the label picked (a list of labels for a multi-select
// question). The answer comes in the form of either app:
//
//   - macOS: {"permissionDecision":"answer","answers":{"<question>":"<label>",…}}
//   - Linux and Windows: {"answers":{…}} the same map, or
//     {"answers":[["<label>"],…]}, one list of labels per question, in order.
//
// ok is false when the answer does not fit the questions asked: every
// question answered once and nothing else, a single-select question with
// one of its own labels, a multi-select one with distinct labels of its own
// (the Rust relay's and the macOS app's rule). Then nothing goes back, and
// Claude Code asks in its terminal.
func UpdatedInput(toolInput, reply []byte) (updated []byte, ok bool) {
	var in map[string]json.RawMessage
	var qs []question
	if json.Unmarshal(toolInput, &in) != nil || in == nil || json.Unmarshal(in["questions"], &qs) != nil || len(qs) == 0 {
		return nil, false
	}
	var r struct {
		Decision *string         `json:"permissionDecision"`
		Answers  json.RawMessage `json:"answers"`
	}
	if len(reply) > maxAnswer || json.Unmarshal(reply, &r) != nil || r.Decision != nil && *r.Decision != "answer" {
		return nil, false
	}
	answers := make(map[string]any, len(qs))
	switch a := bytes.TrimSpace(r.Answers); {
	case len(a) > 0 && a[0] == '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(a, &m) != nil || len(m) != len(qs) {
			return nil, false
		}
		for _, q := range qs {
			v, found := m[q.Question]
			if !found {
				return nil, false
			}
			var labels []string
			var one string
			switch {
			case !q.MultiSelect && json.Unmarshal(v, &one) == nil:
				labels = []string{one}
			case q.MultiSelect && json.Unmarshal(v, &labels) == nil:
			default:
				return nil, false
			}
			if !fits(q, labels) {
				return nil, false
			}
			answers[q.Question] = answerValue(q, labels)
		}
	case len(a) > 0 && a[0] == '[':
		var lists [][]string
		if json.Unmarshal(a, &lists) != nil || len(lists) != len(qs) {
			return nil, false
		}
		for i, q := range qs {
			if _, dup := answers[q.Question]; dup || !fits(q, lists[i]) {
				return nil, false
			}
			answers[q.Question] = answerValue(q, lists[i])
		}
	default:
		return nil, false
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, false
	}
	in["answers"] = b
	return encode(in), true
}

// fits: at least one label, each one of the question's own and none twice;
// exactly one for a single-select question.
func fits(q question, labels []string) bool {
	if len(labels) == 0 || !q.MultiSelect && len(labels) != 1 {
		return false
	}
	for i, l := range labels {
		if slices.Contains(labels[:i], l) || !slices.Contains(q.Options, option{l}) {
			return false
		}
	}
	return true
}

// answerValue is a label for a single-select question, the list for a
// multi-select one (as the macOS app sends it; Claude Code takes the list).
func answerValue(q question, labels []string) any {
	if q.MultiSelect {
		return labels
	}
	return labels[0]
}

// AnswerReply is what the agent reads for an answered question: an allow
// with the updated input, in its dialect's words (Claude Code's on the
// PermissionRequest, and on the --ask PreToolUse hook the PreToolUse form).
func AnswerReply(ev agent.Event, updated []byte) string {
	d, ok := agent.For(ev.Agent)
	if !ok || d.Reply == nil {
		return ""
	}
	return d.Reply(ev.Name, agent.Reply{Decision: agent.Allow, UpdatedInput: updated, By: "Coucou"})
}
