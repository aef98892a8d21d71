package modelapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

var script = Script{
	Steps: []Step{
		{Text: "Let me look.", Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		{Tool: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)},
	},
	Answer: "Done.",
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// sseData returns the data of every event in a stream.
func sseData(stream string) []gjson.Result {
	var out []gjson.Result
	for _, line := range strings.Split(stream, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, gjson.Parse(d))
		}
	}
	return out
}

// The step is the number of tool results the request carries: a retry gets
// the same answer, a request without tools does not advance the script, and
// every response's usage differs from every other's.
func TestAnthropicScript(t *testing.T) {
	s := &Server{Wire: "anthropic", Script: script}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"name":"Bash"}],"stream":true,"model":"claude-x"`
	first := `{` + tools + `,"messages":[{"role":"user","content":"go"}]}`
	for range 2 { // the second is a retry
		ev := sseData(post(t, url+"/v1/messages", first))
		if ev[0].Get("type").String() != "message_start" || ev[len(ev)-1].Get("type").String() != "message_stop" {
			t.Fatalf("stream: %v", ev)
		}
		var text, tool, args string
		for _, e := range ev {
			if e.Get("content_block.type").String() == "tool_use" {
				tool = e.Get("content_block.name").String()
			}
			text += e.Get("delta.text").String()
			args += e.Get("delta.partial_json").String()
		}
		if text != "Let me look." || tool != "Bash" || args != `{"command":"ls"}` {
			t.Errorf("step 0: text %q tool %q args %q", text, tool, args)
		}
	}
	post(t, url+"/v1/messages", `{"messages":[{"role":"user","content":"title?"}]}`) // no tools: a side request
	second := `{` + tools + `,"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`
	if got := sseData(post(t, url+"/v1/messages", second)); got[1].Get("content_block.name").String() != "Read" {
		t.Errorf("step 1: %v", got[1])
	}
	last := `{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"tool_result"},{"type":"tool_result"}]}]}`
	msg := gjson.Parse(post(t, url+"/v1/messages", last)) // not streamed
	if msg.Get("content.0.text").String() != "Done." || msg.Get("stop_reason").String() != "end_turn" {
		t.Errorf("answer: %s", msg.Raw)
	}
	u := msg.Get("usage")
	if u.Get("cache_creation_input_tokens").Int() != u.Get("cache_creation.ephemeral_5m_input_tokens").Int()+u.Get("cache_creation.ephemeral_1h_input_tokens").Int() {
		t.Errorf("cache_creation breakdown does not add up: %s", u.Raw)
	}

	ex := s.Exchanges()
	kinds := ""
	for _, e := range ex {
		kinds += e.Kind + " "
	}
	if kinds != "step step side step answer " {
		t.Errorf("kinds: %s", kinds)
	}
	seen := map[int]bool{}
	for _, e := range ex {
		if e.Kind == "step" && e.Step == 0 {
			continue // the retry repeats step 0's usage, as it should
		}
		for _, v := range []int{e.Usage.Input, e.Usage.Output, e.Usage.CacheRead} {
			if seen[v] {
				t.Errorf("usage figure %d served twice", v)
			}
			seen[v] = true
		}
	}
	_, scripted, n := s.Served()
	want := stepUsage(0).Add(stepUsage(0)).Add(stepUsage(1)).Add(stepUsage(2))
	if n != 4 || scripted != want {
		t.Errorf("served %d scripted %+v, want 4 %+v", n, scripted, want)
	}

	// Another answer in the session (Claude Code's second turn after a
	// background subagent) is told apart, in its text and its figures.
	again := gjson.Parse(post(t, url+"/v1/messages", last))
	if again.Get("content.0.text").String() != "Done. (answer 2)" ||
		again.Get("usage.output_tokens").Int() == msg.Get("usage.output_tokens").Int() {
		t.Errorf("second answer: %s", again.Raw)
	}
}

// Gemini: function calls and their responses, the usage in Gemini's terms,
// and a JSON answer shaped by the request's schema (the model router's).
func TestGeminiScript(t *testing.T) {
	s := &Server{Wire: "gemini", Script: script}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	req := `{"tools":[{"functionDeclarations":[{"name":"Bash"}]}],"contents":[{"role":"user","parts":[{"text":"go"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"Bash"}}]},{"role":"user","parts":[{"functionResponse":{"name":"Bash"}}]}]}`
	ev := sseData(post(t, url+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", req))
	call := ev[len(ev)-1].Get("candidates.0.content.parts.0.functionCall")
	if call.Get("name").String() != "Read" || call.Get("args.file_path").String() != "/x" {
		t.Errorf("step 1: %v", ev)
	}
	m := ev[len(ev)-1].Get("usageMetadata")
	u := stepUsage(1)
	if m.Get("promptTokenCount").Int() != int64(u.Input+u.CacheRead) || m.Get("cachedContentTokenCount").Int() != int64(u.CacheRead) ||
		m.Get("thoughtsTokenCount").Int() != int64(u.Reasoning) || m.Get("candidatesTokenCount").Int() != int64(u.Output-u.Reasoning) {
		t.Errorf("usageMetadata %s for %+v", m.Raw, u)
	}
	router := `{"contents":[],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT",` +
		`"properties":{"complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"}}}}}`
	text := gjson.Get(post(t, url+"/v1beta/models/gemini-x:generateContent", router), "candidates.0.content.parts.0.text").String()
	if text != `{"complexity_reasoning":"scripted","complexity_score":1}` {
		t.Errorf("router answer %s", text)
	}
}

// OpenAI Responses: a function call item, then the answer, with usage in
// OpenAI's terms on response.completed.
func TestOpenAIScript(t *testing.T) {
	s := &Server{Wire: "openai", Script: script}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev := sseData(post(t, url+"/v1/responses", `{"tools":[{"name":"Bash"}],"input":[{"type":"message","role":"user"}]}`))
	var call gjson.Result
	for _, e := range ev {
		if e.Get("type").String() == "response.output_item.done" && e.Get("item.type").String() == "function_call" {
			call = e.Get("item")
		}
	}
	if call.Get("name").String() != "Bash" || call.Get("arguments").String() != `{"command":"ls"}` {
		t.Errorf("step 0: %v", ev)
	}
	req := `{"tools":[{"name":"Bash"}],"input":[{"type":"function_call_output"},{"type":"function_call_output"}]}`
	ev = sseData(post(t, url+"/v1/responses", req))
	done := ev[len(ev)-1]
	u := stepUsage(2)
	if done.Get("type").String() != "response.completed" || done.Get("response.output.0.content.0.text").String() != "Done." ||
		done.Get("response.usage.input_tokens").Int() != int64(u.Input+u.CacheRead) ||
		done.Get("response.usage.input_tokens_details.cached_tokens").Int() != int64(u.CacheRead) ||
		done.Get("response.usage.output_tokens_details.reasoning_tokens").Int() != int64(u.Reasoning) {
		t.Errorf("answer: %s", done.Raw)
	}
}

// Latency holds each answer back by that long (a real API's delay).
func TestLatency(t *testing.T) {
	s := &Server{Wire: "chat", Script: script, Latency: 150 * time.Millisecond}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	post(t, url+"/v1/chat/completions", `{"tools":[{"type":"function","function":{"name":"Bash"}}],"messages":[{"role":"user","content":"go"}]}`)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("answered after %v, want at least 150ms", d)
	}
}
