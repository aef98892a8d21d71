package modelapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/tidwall/gjson"
)

// anthropic answers the Messages API: POST /v1/messages (streaming or not)
// and POST /v1/messages/count_tokens.
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, body []byte, ex *Exchange) bool {
	if r.Method != http.MethodPost {
		return false
	}
	req := gjson.ParseBytes(body)
	ex.Model = req.Get("model").String()
	if hasSuffixPath(r, "/v1/messages/count_tokens") {
		ex.Kind = "count"
		writeJSON(w, map[string]any{"input_tokens": 1234})
		return true
	}
	if !hasSuffixPath(r, "/v1/messages") {
		return false
	}
	model := s.Model
	if model == "" {
		model = ex.Model
	}

	var content []map[string]any // the blocks, as a non-streaming reply holds them
	var u Usage
	stop := "end_turn"
	if len(req.Get("tools").Array()) > 0 {
		results := 0
		req.Get("messages.#.content").ForEach(func(_, c gjson.Result) bool {
			c.ForEach(func(_, b gjson.Result) bool {
				if b.Get("type").String() == "tool_result" {
					results++
				}
				return true
			})
			return true
		})
		sc, step, usage := s.turn(body, results, ex)
		u = usage
		if step < len(sc.Steps) {
			st := sc.Steps[step]
			if st.Text != "" {
				content = append(content, map[string]any{"type": "text", "text": st.Text})
			}
			content = append(content, map[string]any{
				"type": "tool_use", "id": s.id("toolu_"), "name": st.Tool, "input": st.input(),
			})
			stop = "tool_use"
		} else {
			content = append(content, map[string]any{"type": "text", "text": sc.Answer})
		}
	} else {
		u = s.side(ex)
		content = append(content, map[string]any{"type": "text", "text": "Scripted side answer."})
	}
	usage := map[string]any{
		"input_tokens":                u.Input,
		"cache_creation_input_tokens": u.CacheWrite(),
		"cache_read_input_tokens":     u.CacheRead,
		"cache_creation": map[string]any{
			"ephemeral_5m_input_tokens": u.CacheWrite5m,
			"ephemeral_1h_input_tokens": u.CacheWrite1h,
		},
		"output_tokens": u.Output,
		"service_tier":  "standard",
	}
	msg := map[string]any{
		"id": s.id("msg_"), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
	}
	if !req.Get("stream").Bool() {
		writeJSON(w, msg)
		return true
	}

	// Streaming: message_start already holds the final usage (output
	// included), so an agent that copies either message_start's or
	// message_delta's usage gets the same figures.
	e := newSSE(w)
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	e.send("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range content {
		switch b["type"] {
		case "text":
			e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": stepJSON(b["input"])}})
		}
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	e.send("message_stop", map[string]any{"type": "message_stop"})
	return true
}

// ClaudeSubagent picks Claude Code's subagent requests: their system prompt's
// billing header says cc_is_subagent=true.
func ClaudeSubagent(body []byte) bool {
	return bytes.Contains(body, []byte("cc_is_subagent=true"))
}

func stepJSON(v any) string {
	m, _ := v.(map[string]any)
	b, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(b)
}
