package modelapi

import (
	"net/http"

	"github.com/tidwall/gjson"
)

// openai answers the OpenAI Responses API: POST /v1/responses, streaming.
//
// Usage, in OpenAI's terms: input_tokens = Input + CacheRead (cached
// included), cached_tokens = CacheRead, output_tokens = Output (reasoning
// included), reasoning_tokens = Reasoning.
func (s *Server) openai(w http.ResponseWriter, r *http.Request, body []byte, ex *Exchange) bool {
	if r.Method != http.MethodPost || !hasSuffixPath(r, "/responses") {
		return false
	}
	req := gjson.ParseBytes(body)
	ex.Model = req.Get("model").String()
	model := s.Model
	if model == "" {
		model = ex.Model
	}
	var items []map[string]any
	var u Usage
	text := func(t string) map[string]any {
		return map[string]any{"type": "message", "id": s.id("msg_"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t, "annotations": []any{}}}}
	}
	if len(req.Get("tools").Array()) > 0 {
		results := 0
		req.Get("input").ForEach(func(_, it gjson.Result) bool {
			switch it.Get("type").String() {
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				results++
			}
			return true
		})
		sc, step, usage := s.turn(body, results, ex)
		u = usage
		if step < len(sc.Steps) {
			st := sc.Steps[step]
			if st.Text != "" {
				items = append(items, text(st.Text))
			}
			items = append(items, map[string]any{"type": "function_call", "id": s.id("fc_"), "call_id": s.id("call_"),
				"name": st.Tool, "arguments": st.inputJSON(), "status": "completed"})
		} else {
			items = append(items, text(sc.Answer))
		}
	} else {
		u = s.side(ex)
		items = append(items, text("Scripted side answer."))
	}
	id := s.id("resp_")
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	e := newSSE(w)
	e.send("response.created", map[string]any{"type": "response.created", "response": resp})
	for i, it := range items {
		e.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		if it["type"] == "message" {
			t := it["content"].([]any)[0].(map[string]any)["text"]
			e.send("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
				"item_id": it["id"], "output_index": i, "content_index": 0, "delta": t})
		}
		e.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	resp["status"] = "completed"
	resp["output"] = out
	resp["usage"] = map[string]any{
		"input_tokens":          u.Input + u.CacheRead,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.CacheRead + u.Output,
	}
	e.send("response.completed", map[string]any{"type": "response.completed", "response": resp})
	return true
}
