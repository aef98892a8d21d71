package vpet

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// PreviewLimit bounds tool.*'s preview: a glance at what the tool will
// touch, one line.
const PreviewLimit = 120

// previewKeys are the tool-input keys that say what a tool will touch, best
// first, in the canonical argument names (internal/agent/tools.go), which
// each agent's dialect adds beside its own. Keys that hold contents
// (content, new_string, edits) or a whole prompt (a subagent's prompt) are
// deliberately absent: the channel carries metadata, never contents.
var previewKeys = []string{
	agent.ArgCommand,                         // what a shell will run
	agent.ArgFilePath, agent.ArgNotebookPath, // the file it reads or writes
	agent.ArgURL, agent.ArgQuery, agent.ArgPattern, // what it fetches or searches
	agent.ArgPath,
	agent.ArgDescription,  // a subagent's short task name
	agent.ArgSubagentType, // else which subagent
}

var previewRank = func() map[string]int {
	m := make(map[string]int, len(previewKeys))
	for i, k := range previewKeys {
		m[k] = i
	}
	return m
}()

// Preview is a short, one-line account of what a tool will touch, from its
// input, or "" when the input names nothing on the list. Credentials in it
// are redacted before it is clipped, as in agentica (so are errors'), since
// the pet shows it away from the terminal.
func Preview(input json.RawMessage) string {
	if len(input) == 0 {
		return ""
	}
	best, bestRank := gjson.Result{}, len(previewKeys)
	gjson.ParseBytes(input).ForEach(func(k, v gjson.Result) bool {
		if r, ok := previewRank[k.Str]; ok && r < bestRank && previewValue(v) != "" {
			best, bestRank = v, r
		}
		return bestRank > 0
	})
	return text.RedactClip(previewValue(best), PreviewLimit)
}

// previewValue is a string, or an array of strings joined with spaces.
func previewValue(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return text.OneLine(v.Str)
	case v.IsArray():
		var parts []string
		for _, a := range v.Array() {
			if a.Type != gjson.String {
				return ""
			}
			parts = append(parts, a.Str)
		}
		return text.OneLine(strings.Join(parts, " "))
	}
	return ""
}

// ErrorLimit bounds an error's text.
const ErrorLimit = 200

// ToolError is the first line of a tool's error: what went wrong ("Exit code
// 1"), not the output that follows it (a failed command's stderr is the
// tool's output, which this channel never carries).
func ToolError(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if l := text.OneLine(line); l != "" {
			return text.RedactClip(l, ErrorLimit)
		}
	}
	return ""
}

// RunError is run.failed's error, "Type: message" as agentica formats it,
// either part alone when the other is unknown, on one line and bounded.
func RunError(typ, msg string) string {
	typ, msg = text.OneLine(typ), text.OneLine(msg)
	s := msg
	switch {
	case typ != "" && msg != "" && !strings.HasPrefix(msg, typ):
		s = typ + ": " + msg
	case msg == "":
		s = typ
	}
	return text.RedactClip(s, TextLimit)
}
