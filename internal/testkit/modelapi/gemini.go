package modelapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// gemini answers the Gemini API: models/M:streamGenerateContent?alt=sse,
// models/M:generateContent and models/M:countTokens.
//
// Usage, in Gemini's terms: promptTokenCount = Input + CacheRead (cached
// included), cachedContentTokenCount = CacheRead, candidatesTokenCount =
// Output - Reasoning, thoughtsTokenCount = Reasoning, totalTokenCount = the
// sum of prompt, candidates and thoughts.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte, ex *Exchange) bool {
	if r.Method != http.MethodPost {
		return false
	}
	path := r.URL.Path
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return false
	}
	model, method, ok := strings.Cut(path[i+len("/models/"):], ":")
	if !ok {
		return false
	}
	ex.Model = model
	if s.Model != "" {
		model = s.Model
	}
	req := gjson.ParseBytes(body)
	switch method {
	case "countTokens":
		ex.Kind = "count"
		writeJSON(w, map[string]any{"totalTokens": 1234})
		return true
	case "streamGenerateContent", "generateContent":
	default:
		return false
	}

	var parts []map[string]any
	var u Usage
	narration := ""
	if len(req.Get("tools").Array()) > 0 && req.Get("tools.0.functionDeclarations.#").Int() > 0 {
		results := 0
		req.Get("contents").ForEach(func(_, c gjson.Result) bool {
			c.Get("parts").ForEach(func(_, p gjson.Result) bool {
				if p.Get("functionResponse").Exists() {
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
			narration = st.Text
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": st.Tool, "args": st.input()}})
		} else {
			parts = append(parts, map[string]any{"text": sc.Answer})
		}
	} else {
		u = s.side(ex)
		text := "Scripted side answer."
		// Gemini CLI asks for JSON with a schema (its model router's
		// complexity score, who speaks next): answer with the schema's shape,
		// or it retries for a minute and a half.
		if schema := req.Get("generationConfig.responseJsonSchema"); schema.Exists() {
			text = fromSchema(schema).Raw
		} else if schema := req.Get("generationConfig.responseSchema"); schema.Exists() {
			text = fromSchema(schema).Raw
		}
		parts = append(parts, map[string]any{"text": text})
	}
	meta := map[string]any{
		"promptTokenCount":        u.Input + u.CacheRead,
		"cachedContentTokenCount": u.CacheRead,
		"candidatesTokenCount":    u.Output - u.Reasoning,
		"thoughtsTokenCount":      u.Reasoning,
		"totalTokenCount":         u.Input + u.CacheRead + u.Output,
	}
	final := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": meta,
		"modelVersion":  model,
		"responseId":    s.id("resp"),
	}
	if method == "generateContent" {
		if narration != "" {
			parts = append([]map[string]any{{"text": narration}}, parts...)
			final["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"] = parts
		}
		writeJSON(w, final)
		return true
	}
	e := newSSE(w)
	if narration != "" {
		e.send("", map[string]any{
			"candidates": []any{map[string]any{
				"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": narration}}}, "index": 0,
			}},
			"modelVersion": model,
		})
	}
	e.send("", final)
	return true
}

// fromSchema builds the smallest value a JSON schema accepts: the first of an
// enum, "user" for Gemini CLI's next_speaker, 1 for numbers.
func fromSchema(schema gjson.Result) gjson.Result {
	return gjson.Parse(string(schemaValue(schema, "")))
}

func schemaValue(schema gjson.Result, name string) []byte {
	if e := schema.Get("enum.0"); e.Exists() {
		return []byte(e.Raw)
	}
	switch strings.ToLower(schema.Get("type").String()) {
	case "object":
		out := []byte("{")
		first := true
		schema.Get("properties").ForEach(func(k, v gjson.Result) bool {
			if !first {
				out = append(out, ',')
			}
			first = false
			key, _ := json.Marshal(k.String())
			out = append(out, key...)
			out = append(out, ':')
			out = append(out, schemaValue(v, k.String())...)
			return true
		})
		return append(out, '}')
	case "array":
		return []byte("[]")
	case "integer", "number":
		return []byte("1")
	case "boolean":
		return []byte("false")
	}
	if name == "next_speaker" {
		return []byte(`"user"`)
	}
	return []byte(`"scripted"`)
}
