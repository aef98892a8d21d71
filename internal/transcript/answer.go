package transcript

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tidwall/gjson"
)

// Other agents' transcripts hold the answer their turn-end hook leaves out
// or buries: Gemini CLI's AfterAgent sends the whole turn's text (the
// narration before each tool call included) and Copilot CLI's agentStop
// none. Both are complete when the hook fires. They are read backwards from
// the end, as LastAssistantText reads Claude Code's.

// GeminiAnswer is the content of the last model message of a Gemini CLI
// chat (~/.gemini/tmp/<project>/chats/session-….jsonl): the final answer.
// found is false when a user message comes first, or none is in reach; a
// last message that calls tools has no answer ("", true).
func GeminiAnswer(path string, lim TailLimits) (answer string, found bool, err error) {
	return lastRecord(path, lim, []byte(`"type"`), func(r gjson.Result) (string, bool, bool) {
		switch r.Get("type").String() {
		case "gemini":
			if r.Get("toolCalls.#").Int() > 0 {
				return "", true, true
			}
			return partsText(r.Get("content")), true, true
		case "user":
			return "", false, true
		}
		return "", false, false
	})
}

// CopilotAnswer is the content of the last assistant.message of a Copilot
// CLI session's events.jsonl (~/.copilot/session-state/<id>/events.jsonl),
// when it is an answer: one that requests tools is not (Copilot writes the
// file behind, so at agentStop its end may still be mid-turn). found is
// false then, when a user.message comes first, or none is in reach.
func CopilotAnswer(path string, lim TailLimits) (answer string, found bool, err error) {
	return lastRecord(path, lim, []byte(`"type"`), func(r gjson.Result) (string, bool, bool) {
		switch r.Get("type").String() {
		case "assistant.message":
			if r.Get("data.toolRequests.#").Int() > 0 {
				return "", false, true
			}
			return r.Get("data.content").String(), true, true
		case "user.message":
			return "", false, true
		}
		return "", false, false
	})
}

// lastRecord walks the file backwards, handing each JSON line that holds
// word to pick, until pick says it is done.
func lastRecord(path string, lim TailLimits, word []byte, pick func(gjson.Result) (text string, found, done bool)) (string, bool, error) {
	var text string
	var found bool
	err := eachLineBackwards(path, lim, func(line []byte, tooLong bool) error {
		if tooLong {
			return errStop
		}
		if !bytes.Contains(line, word) || !validLine(line) {
			return nil // a torn last line, a line of no interest
		}
		t, ok, done := pick(gjson.ParseBytes(line))
		if done {
			text, found = t, ok
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return "", false, err
	}
	return text, found, nil
}

// partsText is a content that is a string, or parts [{"text"}…] joined.
func partsText(c gjson.Result) string {
	if !c.IsArray() {
		return c.String()
	}
	var b strings.Builder
	for _, p := range c.Array() {
		b.WriteString(p.Get("text").String())
	}
	return b.String()
}
