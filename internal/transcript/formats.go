package transcript

import (
	"bytes"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Format is the transcript's writer. Each agent writes its own kind of JSON
// lines, and reports usage in its own terms; each format maps them to the
// four figures of Usage, with one meaning for every agent:
//
//	In          input not served from cache (and not written to it)
//	CacheRead   input served from cache
//	CacheCreate input written to cache, where the agent reports it (else 0)
//	Out         output, reasoning/thinking included
type Format uint8

const (
	// Claude is Claude Code's <session>.jsonl (and its subagents' files).
	Claude Format = iota
	// Codex is Codex's rollout-….jsonl: one token_usage_record per model
	// response, keyed by the API's response_id; the model in turn_context.
	Codex
	// Gemini is Gemini CLI's chats/session-….jsonl: one record per model
	// message with its tokens, some written twice, replayed without tokens
	// by --resume.
	Gemini
	// Copilot is Copilot CLI's session-state/<id>/events.jsonl: one
	// session.usage_record per model call, with an accounting identity.
	Copilot
	// Droid is Factory Droid's sessions/<project>/<id>.jsonl, whose lines
	// carry no usage: the running totals are in <id>.settings.json beside
	// it (see droid.go).
	Droid
	// Qwen is Qwen Code's projects/<project>/chats/<session>.jsonl: one
	// assistant record per model call, with the call's usageMetadata.
	Qwen
	// Opencode is no file: opencode's assistant messages, as hookwire's
	// plugin hands them over in its events' payloads (Carried).
	Opencode
	// Pi is Pi's sessions/--<path>--/<ts>_<session>.jsonl: one message
	// record per assistant message, with the model call's usage.
	Pi
	// Cline is Cline CLI's sessions/<id>/<id>.json, the session's record,
	// whose totals are written when its run ends (see cline.go).
	Cline
	// Kimi is Kimi Code's sessions/wd_…/<session>/agents/main/wire.jsonl:
	// one usage.record per model call; the model in llm.request (see
	// kimi.go).
	Kimi
)

// Behind reports whether the agent may fire its turn end before the
// turn's last model call is in its transcript (Claude Code flushes after
// Stop; Copilot CLI's -p mode writes its file after agentStop; Qwen Code
// writes its chat asynchronously; Cline CLI writes its totals as the run
// ends; Kimi Code its wire.jsonl behind its hooks): a turn end waits for it.
func (f Format) Behind() bool {
	return f == Claude || f == Copilot || f == Qwen || f == Cline || f == Kimi
}

// ByTime reports whether a turn's end in the transcript is found by time,
// as the first message that ended a turn since the prompt's hook
// (Session.EndedSince): the agent's turn end names nothing of its turn.
// Claude Code's names its prompt (Session.Finished).
func (f Format) ByTime() bool { return f == Copilot || f == Qwen || f == Cline || f == Kimi }

// LateFile reports whether the transcript itself may not exist yet at the
// turn end (Copilot CLI's -p mode writes its events file after agentStop).
func (f Format) LateFile() bool { return f == Copilot }

// The prefilters: a line without its key carries nothing for the format.
var (
	codexUsageKey   = []byte(`"token_usage_record"`)
	codexModelKey   = []byte(`"turn_context"`)
	geminiUsageKey  = []byte(`"tokens"`)
	copilotUsageKey = []byte(`"session.usage_record"`)
	copilotTurnKey  = []byte(`.message"`) // "user.message", "assistant.message"
	qwenUsageKey    = []byte(`"usageMetadata"`)
	qwenUserKey     = []byte(`"type":"user"`)
	piUsageKey      = []byte(`"usage"`)
)

// linesOf counts the usage lines of region (whole lines) for formats other
// than Claude's.
func (s *Session) linesOf(region []byte, main bool, f Format) error {
	var keys [][]byte
	var parse func([]byte) (record, bool)
	switch f {
	case Codex:
		// The model comes from turn_context lines, which carry no usage.
		keys, parse = [][]byte{codexUsageKey, codexModelKey}, parseCodex
	case Gemini:
		keys, parse = [][]byte{geminiUsageKey}, parseGemini
	case Copilot:
		keys, parse = [][]byte{copilotUsageKey, copilotTurnKey}, parseCopilot
	case Qwen:
		// A user record opens a turn; the assistant records carry the usage.
		keys, parse = [][]byte{qwenUsageKey, qwenUserKey}, parseQwen
	case Pi:
		keys, parse = [][]byte{piUsageKey}, parsePi
	case Kimi:
		// The model comes from llm.request lines, which carry no usage;
		// turn.prompt opens a turn, a step.end that called no tool ends it.
		keys, parse = [][]byte{kimiUsageKey, kimiModelKey, kimiPromptKey, kimiStepEndKey}, parseKimi
	default:
		return nil
	}
	var err error
	eachLine(region, keys, func(line []byte, has func(int) bool) {
		if err != nil {
			return
		}
		if f == Kimi && (has(1) || has(2) || has(3)) {
			s.kimiLine(line, main)
		} else if len(keys) > 1 && has(1) {
			switch f {
			case Codex:
				if m := codexModel(line); main && m != "" && m != s.Model {
					s.Model = strings.Clone(m) // m aliases the scan buffer
				}
			case Copilot:
				s.copilotTurn(line)
			case Qwen:
				s.qwenTurn(line)
			}
		}
		if !has(0) {
			return
		}
		if f == Qwen {
			s.qwenTurn(line)
		}
		r, ok := parse(line)
		if !ok {
			return
		}
		// The model of the newest record (not of one replayed).
		var added bool
		if added, err = s.count(r, main); added && main && r.model != "" && r.model != s.Model {
			s.Model = strings.Clone(r.model)
		}
	})
	return err
}

// copilotTurn follows Copilot CLI's turns: a user message opens one, an
// assistant message that asks for no tool (the main agent's) ends it.
func (s *Session) copilotTurn(line []byte) {
	root, ok := object(line)
	if !ok {
		return
	}
	switch root.Get("type").Str {
	case "user.message":
		s.TurnEnded = false
	case "assistant.message":
		d := root.Get("data")
		if len(d.Get("toolRequests").Array()) == 0 && !d.Get("parentToolCallId").Exists() && root.Get("agentId").Str == "" {
			s.TurnEnded = true
			s.FinalTS = max(s.FinalTS, millis(root.Get("timestamp").Str))
		}
	}
}

// qwenTurn follows Qwen Code's turns as Copilot's: a user record opens one,
// an assistant record that calls no function ends it.
func (s *Session) qwenTurn(line []byte) {
	root, ok := object(line)
	if !ok {
		return
	}
	switch root.Get("type").Str {
	case "user":
		s.TurnEnded = false
	case "assistant":
		if len(root.Get("message.parts.#.functionCall").Array()) == 0 {
			s.TurnEnded = true
			s.FinalTS = max(s.FinalTS, millis(root.Get("timestamp").Str))
		}
	}
}

// eachLine calls fn, in file order, with every line of region (whole lines)
// that contains one of keys (a nil key is none); has(i) tells whether it
// contains keys[i]. Each key is searched for at memchr speed, once over
// the region.
func eachLine(region []byte, keys [][]byte, fn func(line []byte, has func(i int) bool)) {
	pos := make([]int, len(keys)) // the next match of each key; -1: none left
	for i := range pos {
		pos[i] = -2
	}
	var start, end int
	has := func(i int) bool { return keys[i] != nil && pos[i] >= start && pos[i] < end }
	for off := 0; off < len(region); {
		first := -1
		for i, k := range keys {
			if k == nil {
				continue
			}
			if pos[i] != -1 && pos[i] < off {
				if j := bytes.Index(region[off:], k); j >= 0 {
					pos[i] = off + j
				} else {
					pos[i] = -1
				}
			}
			if pos[i] >= 0 && (first < 0 || pos[i] < first) {
				first = pos[i]
			}
		}
		if first < 0 {
			return
		}
		start = bytes.LastIndexByte(region[:first], '\n') + 1
		end = first + bytes.IndexByte(region[first:], '\n')
		if end < first {
			end = len(region)
		}
		fn(region[start:end], has)
		off = end + 1
	}
}

// object parses a line that passed a prefilter, without copying it.
func object(line []byte) (gjson.Result, bool) {
	if !validLine(line) {
		return gjson.Result{}, false
	}
	root := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
	return root, root.IsObject()
}

func millis(ts string) int64 {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.UnixMilli()
	}
	return 0
}

// n reads a token count: 0 for anything that is not a non-negative number.
func n(v gjson.Result) int64 { return max(0, v.Int()) }

// Codex 0.169 writes, per model response,
//
//	{"timestamp":…,"type":"token_usage_record","payload":{…,"response_id":"resp_…",
//	 "usage":{"input_tokens","cached_input_tokens","cache_write_input_tokens",
//	          "output_tokens","reasoning_output_tokens","total_tokens"},…}}
//
// where input_tokens counts the cached and cache-written tokens too (the
// OpenAI convention) and output_tokens the reasoning. The running
// token_count events repeat the same figures and are not read.
func parseCodex(line []byte) (r record, ok bool) {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "token_usage_record" {
		return r, false
	}
	p := root.Get("payload")
	u := p.Get("usage")
	if !u.IsObject() {
		return r, false
	}
	in, cached, written := n(u.Get("input_tokens")), n(u.Get("cached_input_tokens")), n(u.Get("cache_write_input_tokens"))
	r.usage = Usage{In: max(0, in-cached-written), Out: n(u.Get("output_tokens")), CacheCreate: written, CacheRead: cached}
	id := p.Get("response_id").Str
	if id == "" {
		r.key = hash64([]byte("codex-line"), bytes.TrimSpace(line))
	} else {
		r.key = hash64([]byte("codex"), []byte(p.Get("thread_id").Str), []byte(id))
	}
	r.ts = millis(root.Get("timestamp").Str)
	return r, true
}

// codexModel reads a turn_context line's model, or "".
func codexModel(line []byte) string {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "turn_context" {
		return ""
	}
	return root.Get("payload.model").Str
}

// Gemini CLI 0.61 writes each model message as a top-level record
//
//	{"id":…,"timestamp":…,"type":"gemini","content":…,"tokens":{"input","output",
//	 "cached","thoughts","tool","total"},"model":"gemini-…"}
//
// where input is the API's promptTokenCount (cached included), output its
// candidatesTokenCount (thoughts not included) and tool its
// toolUsePromptTokenCount (not in promptTokenCount). A message that calls
// tools is written twice with the same id; --resume replays the history in
// a {"$set":{"messages":[…]}} line, tokens stripped: only top-level records
// count, each id once.
func parseGemini(line []byte) (r record, ok bool) {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "gemini" {
		return r, false
	}
	t := root.Get("tokens")
	if !t.IsObject() {
		return r, false
	}
	in, cached := n(t.Get("input")), n(t.Get("cached"))
	r.usage = Usage{In: max(0, in-cached) + n(t.Get("tool")), Out: n(t.Get("output")) + n(t.Get("thoughts")), CacheRead: cached}
	if id := root.Get("id").Str; id != "" {
		r.key = hash64([]byte("gemini"), []byte(id))
	} else {
		r.key = hash64([]byte("gemini-line"), bytes.TrimSpace(line))
	}
	r.ts = millis(root.Get("timestamp").Str)
	r.model = root.Get("model").Str
	return r, true
}

// Copilot CLI 1.0.102 writes, per model call, a durable accounting receipt
//
//	{"type":"session.usage_record","data":{"usage":{"model","inputTokens",
//	 "outputTokens","cacheReadTokens","cacheWriteTokens","reasoningTokens",…,
//	 "accounting":{"sourceSessionId","sequence","usageId"}}},"id":…,"timestamp":…}
//
// where inputTokens is the whole prompt (cache reads and writes included)
// and outputTokens includes reasoning. (Its assistant.usage events, which
// say the same, are never written to the file.)
func parseCopilot(line []byte) (r record, ok bool) {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "session.usage_record" {
		return r, false
	}
	u := root.Get("data.usage")
	if !u.IsObject() {
		return r, false
	}
	in, read, written := n(u.Get("inputTokens")), n(u.Get("cacheReadTokens")), n(u.Get("cacheWriteTokens"))
	r.usage = Usage{In: max(0, in-read-written), Out: n(u.Get("outputTokens")), CacheCreate: written, CacheRead: read}
	acc := u.Get("accounting")
	switch id := acc.Get("usageId").Str; {
	case id != "":
		r.key = hash64([]byte("copilot"), []byte(acc.Get("sourceSessionId").Str), []byte(id))
	case root.Get("id").Str != "":
		r.key = hash64([]byte("copilot-event"), []byte(root.Get("id").Str))
	default:
		r.key = hash64([]byte("copilot-line"), bytes.TrimSpace(line))
	}
	r.ts = millis(root.Get("timestamp").Str)
	if root.Get("agentId").Str == "" { // a subagent's call (counted) names its own model
		r.model = u.Get("model").Str
	}
	return r, true
}

// Qwen Code 0.24 writes each model call's reply as a record
//
//	{"uuid":…,"sessionId":…,"timestamp":…,"type":"assistant",…,"model":"…",
//	 "message":{"role":"model","parts":[…]},"usageMetadata":{"promptTokenCount",
//	 "candidatesTokenCount","thoughtsTokenCount","totalTokenCount","cachedContentTokenCount"}}
//
// in Gemini's names but with OpenAI's meanings (recorded against chat
// completions): promptTokenCount is prompt_tokens (cached included) and
// candidatesTokenCount is completion_tokens, reasoning included, so
// thoughtsTokenCount is not added to it. The ui_telemetry records beside
// repeat the figures under other names and are not read.
func parseQwen(line []byte) (r record, ok bool) {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "assistant" {
		return r, false
	}
	u := root.Get("usageMetadata")
	if !u.IsObject() {
		return r, false
	}
	in, cached := n(u.Get("promptTokenCount")), n(u.Get("cachedContentTokenCount"))
	r.usage = Usage{In: max(0, in-cached), Out: n(u.Get("candidatesTokenCount")), CacheRead: cached}
	if id := root.Get("uuid").Str; id != "" {
		r.key = hash64([]byte("qwen"), []byte(id))
	} else {
		r.key = hash64([]byte("qwen-line"), bytes.TrimSpace(line))
	}
	r.ts = millis(root.Get("timestamp").Str)
	r.model = root.Get("model").Str
	return r, true
}

// Pi 1.6 writes each assistant message as a record
//
//	{"type":"message","id":…,"parentId":…,"timestamp":…,"message":{"role":"assistant",
//	 "content":[…],"provider":…,"model":"…","usage":{"input","output","cacheRead",
//	 "cacheWrite","reasoning","totalTokens","cost":{…}},"stopReason":…}}
//
// where input is the input neither read from nor written to the cache
// (Pi takes the cached tokens out of an OpenAI prompt_tokens), output is
// completion_tokens, reasoning included (reasoning is not added), and
// totalTokens their sum. A usage record ({"type":"usage","kind":…}: a
// cache warm-up, outside the conversation) is the session's too: Pi counts
// it in its own totals, so does the burn. Each record is keyed by its id.
func parsePi(line []byte) (r record, ok bool) {
	root, ok := object(line)
	if !ok {
		return r, false
	}
	var u gjson.Result
	switch root.Get("type").Str {
	case "message":
		if root.Get("message.role").Str != "assistant" {
			return r, false
		}
		u = root.Get("message.usage")
		r.model = root.Get("message.model").Str
	case "usage":
		u = root.Get("usage")
	default:
		return r, false
	}
	if !u.IsObject() {
		return r, false
	}
	r.usage = Usage{In: n(u.Get("input")), Out: n(u.Get("output")), CacheCreate: n(u.Get("cacheWrite")), CacheRead: n(u.Get("cacheRead"))}
	if id := root.Get("id").Str; id != "" {
		r.key = hash64([]byte("pi"), []byte(id))
	} else {
		r.key = hash64([]byte("pi-line"), bytes.TrimSpace(line))
	}
	r.ts = millis(root.Get("timestamp").Str)
	return r, true
}
