package modelapi

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// chat answers the OpenAI Chat Completions API: POST /v1/chat/completions,
// streaming or not (Qwen Code, and any OpenAI-compatible client).
//
// Usage, in OpenAI's terms: prompt_tokens = Input + CacheRead (cached
// included), prompt_tokens_details.cached_tokens = CacheRead,
// completion_tokens = Output (reasoning included),
// completion_tokens_details.reasoning_tokens = Reasoning. A stream carries it
// in a last chunk with no choices, as stream_options.include_usage asks; it
// is sent whether or not the request asked, as some compatible servers do.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte, ex *Exchange) bool {
	if r.Method != http.MethodPost || !hasSuffixPath(r, "/chat/completions") {
		return false
	}
	req := gjson.ParseBytes(body)
	ex.Model = req.Get("model").String()
	model := s.Model
	if model == "" {
		model = ex.Model
	}
	var text string
	var call map[string]any // the tool call, as a non-streaming message holds it
	var u Usage
	finish := "stop"
	if len(req.Get("tools").Array()) > 0 && !suggestion(req) {
		results := 0
		req.Get("messages").ForEach(func(_, m gjson.Result) bool {
			if m.Get("role").String() == "tool" {
				results++
			}
			return true
		})
		sc, step, usage := s.turn(body, results, ex)
		u = usage
		if step < len(sc.Steps) {
			st := sc.Steps[step]
			text = st.Text
			call = map[string]any{"id": s.id("call_"), "type": "function",
				"function": map[string]any{"name": st.Tool, "arguments": st.inputJSON()}}
			finish = "tool_calls"
		} else {
			text = sc.Answer
		}
	} else {
		u = s.side(ex)
		text = "Scripted side answer."
	}
	usage := map[string]any{
		"prompt_tokens":             u.Input + u.CacheRead,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
		"completion_tokens":         u.Output,
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":              u.Input + u.CacheRead + u.Output,
	}
	id := s.id("chatcmpl_")
	const created = 1767225600 // fixed: the recordings stay stable

	if !req.Get("stream").Bool() {
		msg := map[string]any{"role": "assistant", "content": text}
		if text == "" {
			msg["content"] = nil
		}
		if call != nil {
			msg["tool_calls"] = []any{call}
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return true
	}

	e := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		e.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if text != "" {
		chunk(map[string]any{"content": text}, nil)
	}
	if call != nil {
		// The call's head (id, name) first, then its arguments, in the
		// fragments a real stream uses.
		fn := call["function"].(map[string]any)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0,
			"function": map[string]any{"arguments": fn["arguments"]}}}}, nil)
	}
	chunk(map[string]any{}, finish)
	e.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
		"choices": []any{}, "usage": usage})
	e.w.Write([]byte("data: [DONE]\n\n"))
	if e.f != nil {
		e.f.Flush()
	}
	return true
}

// suggestion picks Qwen Code's prompt suggestions: after each answer its
// interactive UI asks the model, tools offered, what the user might type
// next ("[SUGGESTION MODE: …" as the last user message). It is a side
// request, which Qwen writes nowhere.
func suggestion(req gjson.Result) bool {
	msgs := req.Get("messages").Array()
	if len(msgs) == 0 {
		return false
	}
	last := msgs[len(msgs)-1]
	if last.Get("role").Str != "user" {
		return false
	}
	text := last.Get("content").Str
	if c := last.Get("content"); c.IsArray() {
		text = c.Get("0.text").Str
	}
	return strings.HasPrefix(text, "[SUGGESTION MODE:")
}

// QwenSubagent picks Qwen Code's subagent requests: a subagent's system
// prompt says it works for a parent agent.
func QwenSubagent(body []byte) bool {
	return bytes.Contains(body, []byte("subagent working for a parent agent"))
}
