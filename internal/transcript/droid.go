package transcript

import (
	"io"
	"os"
	"strings"

	"github.com/tidwall/gjson"
)

// Factory Droid 0.225 keeps a session as two files side by side in
// ~/.factory/sessions/<project key>/:
//
//	<id>.jsonl          the transcript (the hooks' transcript_path): records
//	                    {"type":"message","id","parentId","timestamp","message":{"role",
//	                    "content",…}}, plus session_start and agent_turn_outcome lines;
//	                    no usage at all.
//	<id>.settings.json  the session's settings, rewritten whole after every model
//	                    call: "tokenUsage" {"inputTokens","outputTokens",
//	                    "cacheCreationTokens","cacheReadTokens","thinkingTokens",
//	                    "factoryCredits"} is the running total of every call of the
//	                    session (requests outside the conversation, such as the
//	                    TUI's title request, included), "inclusiveTokenUsage" the
//	                    same with its child sessions', "lastCallTokenUsage" the
//	                    last call's, "model" the model id ("custom:<name>-<n>" for
//	                    a custom model).
//
// Per-call figures are written nowhere else but Droid's own debug log. The
// burn is therefore the settings file's total, read whole at every scan (it
// is a few hundred bytes); inputTokens is the input neither read from nor
// written to the cache, as Anthropic counts it, and outputTokens includes
// thinking (thinkingTokens was 0 in every recording, and is not added).

// DroidSettings is the settings file beside a Droid transcript.
func DroidSettings(transcript string) string {
	return strings.TrimSuffix(transcript, ".jsonl") + ".settings.json"
}

// droidSettingsMax bounds the settings file read: it is small, and anything
// much larger is not Droid's.
const droidSettingsMax = 1 << 20

// scanDroid reads the running totals beside a Droid transcript into Base,
// which Burn adds (nothing else is counted for Droid). The totals only grow;
// a smaller figure (a file caught mid-rewrite, a session restarted) keeps
// the larger.
func (s *Session) scanDroid(transcript string, opt Options) (Result, error) {
	f, err := os.Open(DroidSettings(transcript))
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, droidSettingsMax+1))
	if err != nil {
		return Result{}, err
	}
	if len(b) > droidSettingsMax || !gjson.ValidBytes(b) {
		// Torn (being rewritten) or not Droid's: nothing learnt, try again later.
		return Result{Done: false}, nil
	}
	root := gjson.ParseBytes(b)
	u := root.Get("tokenUsage")
	if opt.Subagents && root.Get("inclusiveTokenUsage").IsObject() {
		u = root.Get("inclusiveTokenUsage")
	}
	got := Usage{
		In:          n(u.Get("inputTokens")),
		Out:         n(u.Get("outputTokens")),
		CacheCreate: n(u.Get("cacheCreationTokens")),
		CacheRead:   n(u.Get("cacheReadTokens")),
	}
	s.Base = s.Base.Max(got)
	if m := droidModel(root.Get("model").Str); m != "" {
		s.Model = m
	}
	return Result{Done: true}, nil
}

// droidModel is the model as Droid shows it: a custom model's id
// "custom:<display name>-<index>" is shown as its display name.
func droidModel(id string) string {
	name, ok := strings.CutPrefix(id, "custom:")
	if !ok {
		return id
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" && i+1 < len(name) {
		name = name[:i]
	}
	return name
}

// DroidEnd is how a Droid turn ended, read from the record its Stop hook
// names (message_id): Stop carries no answer, and fires alike for an
// answer, a failed model request and a cancelled tool.
type DroidEnd uint8

const (
	// DroidAnswered: an assistant message, the answer (its text).
	DroidAnswered DroidEnd = iota + 1
	// DroidFailed: a message Droid wrote for the user alone, the error
	// (its text, "BYOK Error: …" for a custom model's failed request).
	DroidFailed
	// DroidCancelled: the result of a tool the user refused or
	// interrupted ("Tool execution cancelled by user").
	DroidCancelled
)

// DroidTurnEnd finds the record messageID in a Droid transcript, from its
// end (Droid writes it before Stop fires), and says how the turn ended,
// with the text to show. found is false when no record of that id is in
// reach.
func DroidTurnEnd(path, messageID string, lim TailLimits) (end DroidEnd, text string, found bool, err error) {
	if messageID == "" {
		return 0, "", false, nil
	}
	word := []byte(`"` + messageID + `"`)
	var kind DroidEnd
	text, found, err = lastRecord(path, lim, word, func(r gjson.Result) (string, bool, bool) {
		if r.Get("id").Str != messageID {
			return "", false, false // a record that names it as its parent
		}
		m := r.Get("message")
		var texts []string
		cancelled := false
		m.Get("content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "text":
				texts = append(texts, b.Get("text").Str)
			case "tool_result":
				if b.Get("is_error").Bool() {
					cancelled = true
					texts = append(texts, b.Get("content").String())
				}
			}
			return true
		})
		switch {
		case m.Get("role").Str == "assistant":
			kind = DroidAnswered
		case cancelled:
			kind = DroidCancelled
		default:
			kind = DroidFailed
		}
		return strings.Join(texts, "\n\n"), true, true
	})
	if !found {
		return 0, "", false, err
	}
	return kind, text, true, err
}
