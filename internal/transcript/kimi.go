package transcript

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tidwall/gjson"
)

// Kimi Code 2.1 writes a session's events, one JSON object a line, to
// sessions/wd_<folder>_<hash>/<session>/agents/main/wire.jsonl. Each model
// call is
//
//	{"type":"llm.request",…,"kind":"loop","model":"kimi-k2","modelAlias":…}
//	{"type":"usage.record","agentId":"main","model":"<alias>","usage":{"inputOther",
//	 "output","inputCacheRead","inputCacheCreation"},"usageScope":"turn","time":<ms>}
//
// where inputOther is the input neither read from nor written to the cache
// (the three input figures add up to the prompt), and output includes the
// reasoning. The same figures come again in the step's step.end and in the
// message's agent.message.appended: only usage.record is counted. The
// record names the model by the config's alias (__kimi_env_model__ for the
// model the environment names); llm.request names the model the API was
// asked for.
//
// Kimi writes the file behind its hooks (on a loaded machine the last
// call's record can come after Stop): turn.prompt opens a turn, and the
// step.end of a step that called no tool ends it (Format.ByTime).
var (
	kimiUsageKey   = []byte(`"usage.record"`)
	kimiModelKey   = []byte(`"llm.request"`)
	kimiPromptKey  = []byte(`"turn.prompt"`)
	kimiStepEndKey = []byte(`"step.end"`)
)

func parseKimi(line []byte) (r record, ok bool) {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "usage.record" {
		return r, false
	}
	u := root.Get("usage")
	if !u.IsObject() {
		return r, false
	}
	r.usage = Usage{In: n(u.Get("inputOther")), Out: n(u.Get("output")),
		CacheCreate: n(u.Get("inputCacheCreation")), CacheRead: n(u.Get("inputCacheRead"))}
	// No id: the line (its time included) is the record.
	r.key = hash64([]byte("kimi-line"), bytes.TrimSpace(line))
	r.ts = root.Get("time").Int()
	return r, true
}

// kimiLine follows the model (llm.request) and the turns (turn.prompt,
// step.end).
func (s *Session) kimiLine(line []byte, main bool) {
	root, ok := object(line)
	if !ok {
		return
	}
	switch root.Get("type").Str {
	case "llm.request":
		if m := root.Get("model").Str; main && m != "" && m != s.Model {
			s.Model = strings.Clone(m) // m aliases the scan buffer
		}
	case "turn.prompt":
		s.TurnEnded = false
	case "context.append_loop_event":
		ev := root.Get("event")
		if ev.Get("type").Str == "step.end" && !strings.HasPrefix(ev.Get("finishReason").Str, "tool_") {
			s.TurnEnded = true
			s.FinalTS = max(s.FinalTS, root.Get("time").Int())
		}
	}
}

// KimiAnswer is the text of the turn's last model call in a Kimi Code
// wire.jsonl: its content.part texts, in order, back to the step's
// step.begin; found is false when that step called a tool (no answer) or
// wrote no text.
func KimiAnswer(path string, lim TailLimits) (answer string, found bool, err error) {
	var parts []string
	err = eachLineBackwards(path, lim, func(line []byte, tooLong bool) error {
		if tooLong {
			parts = nil // a text too long to read whole, or not the step's
			return errStop
		}
		if !bytes.Contains(line, []byte(`"context.append_loop_event"`)) || !validLine(line) {
			return nil
		}
		ev := gjson.GetBytes(line, "event")
		switch ev.Get("type").Str {
		case "step.begin":
			return errStop
		case "tool.call":
			parts = nil
			return errStop
		case "content.part":
			if p := ev.Get("part"); p.Get("type").Str == "text" {
				parts = append(parts, p.Get("text").Str)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return "", false, err
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(p)
	}
	return b.String(), len(parts) > 0, nil
}
