package modelapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Chat Completions, streamed: the narration, the tool call assembled from its
// fragments, finish_reason tool_calls, then the usage in a last chunk with no
// choices and [DONE]. The step is the number of role "tool" messages.
func TestChatScript(t *testing.T) {
	s := &Server{Wire: "chat", Script: script}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"type":"function","function":{"name":"Bash"}}],"model":"qwen-x"`
	stream := post(t, url+"/v1/chat/completions", `{`+tools+`,"stream":true,"messages":[{"role":"user","content":"go"}]}`)
	ev := sseData(stream)
	var text, name, args, id, finish string
	var usage gjson.Result
	for _, e := range ev {
		c := e.Get("choices.0")
		text += c.Get("delta.content").String()
		tc := c.Get("delta.tool_calls.0")
		id += tc.Get("id").String()
		name += tc.Get("function.name").String()
		args += tc.Get("function.arguments").String()
		if f := c.Get("finish_reason").String(); f != "" {
			finish = f
		}
		if e.Get("usage").Exists() {
			usage = e.Get("usage")
			if len(e.Get("choices").Array()) != 0 {
				t.Errorf("usage chunk has choices: %s", e.Raw)
			}
		}
	}
	if text != "Let me look." || name != "Bash" || args != `{"command":"ls"}` || id == "" || finish != "tool_calls" {
		t.Errorf("step 0: text %q name %q args %q id %q finish %q", text, name, args, id, finish)
	}
	u := stepUsage(0)
	u.CacheWrite5m, u.CacheWrite1h = 0, 0
	if usage.Get("prompt_tokens").Int() != int64(u.Input+u.CacheRead) ||
		usage.Get("prompt_tokens_details.cached_tokens").Int() != int64(u.CacheRead) ||
		usage.Get("completion_tokens").Int() != int64(u.Output) ||
		usage.Get("completion_tokens_details.reasoning_tokens").Int() != int64(u.Reasoning) {
		t.Errorf("usage %s for %+v", usage.Raw, u)
	}
	if got := stream[len(stream)-len("data: [DONE]\n\n"):]; got != "data: [DONE]\n\n" {
		t.Errorf("stream ends with %q", got)
	}

	post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"title?"}]}`) // no tools: a side request
	one := `{` + tools + `,"messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{}]},{"role":"tool","content":"ok"}]}`
	msg := gjson.Parse(post(t, url+"/v1/chat/completions", one)) // not streamed
	if msg.Get("choices.0.message.tool_calls.0.function.name").String() != "Read" ||
		msg.Get("choices.0.message.tool_calls.0.function.arguments").String() != `{"file_path":"/x"}` ||
		msg.Get("choices.0.message.content").Type != gjson.Null || msg.Get("choices.0.finish_reason").String() != "tool_calls" {
		t.Errorf("step 1: %s", msg.Raw)
	}
	two := `{` + tools + `,"messages":[{"role":"tool"},{"role":"tool"}]}`
	msg = gjson.Parse(post(t, url+"/v1/chat/completions", two))
	if msg.Get("choices.0.message.content").String() != "Done." || msg.Get("choices.0.finish_reason").String() != "stop" ||
		msg.Get("choices.0.message.tool_calls").Exists() {
		t.Errorf("answer: %s", msg.Raw)
	}

	// Qwen Code's prompt suggestion, tools offered, is a side request.
	sug := `{` + tools + `,"messages":[{"role":"tool"},{"role":"user","content":[{"type":"text","text":"[SUGGESTION MODE: Suggest what the user might naturally type next.]"}]}]}`
	if got := gjson.Parse(post(t, url+"/v1/chat/completions", sug)); got.Get("choices.0.message.content").String() != "Scripted side answer." {
		t.Errorf("suggestion: %s", got.Raw)
	}

	kinds := ""
	for _, e := range s.Exchanges() {
		kinds += e.Kind + " "
	}
	if kinds != "step side step answer side " {
		t.Errorf("kinds: %s", kinds)
	}
	_, scripted, n := s.Served()
	want := stepUsage(0).Add(stepUsage(1)).Add(stepUsage(2))
	want.CacheWrite5m, want.CacheWrite1h = 0, 0
	if n != 3 || scripted != want {
		t.Errorf("served %d scripted %+v, want 3 %+v", n, scripted, want)
	}
}

// Fail answers every request with the status and an error body.
func TestFail(t *testing.T) {
	s := &Server{Wire: "chat", Script: script, Fail: 400}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","tools":[{}],"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || gjson.GetBytes(b, "error.message").String() != "scripted failure (HTTP 400)" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	if ex := s.Exchanges(); len(ex) != 1 || ex[0].Kind != "error" || ex[0].Usage != nil {
		t.Errorf("exchanges %+v", ex)
	}
}

// FailTimes fails the first requests only: the retry after them gets the
// script's first step.
func TestFailTimes(t *testing.T) {
	s := &Server{Wire: "chat", Script: script, Fail: 500, FailTimes: 2}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, want := range []int{500, 500, 200, 200} {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","tools":[{}],"messages":[{"role":"user","content":"go"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("request %d: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	var kinds string
	for _, e := range s.Exchanges() {
		kinds += e.Kind + " "
	}
	if kinds != "error error step step " {
		t.Errorf("kinds: %s", kinds)
	}
}

// Qwen Code's subagents get their own script.
func TestChatSubagent(t *testing.T) {
	sub := Script{Steps: []Step{{Tool: "run_shell_command", Input: json.RawMessage(`{"command":"echo sub"}`)}}, Answer: "Sub done."}
	s := &Server{Wire: "chat", Script: script, Subagent: &sub, IsSubagent: QwenSubagent}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	req := `{"tools":[{}],"messages":[{"role":"system","content":"You are a general-purpose subagent working for a parent agent."},{"role":"user","content":"go"}]}`
	got := gjson.Parse(post(t, url+"/v1/chat/completions", req))
	if got.Get("choices.0.message.tool_calls.0.function.name").String() != "run_shell_command" {
		t.Errorf("subagent step 0: %s", got.Raw)
	}
	main := `{"tools":[{}],"messages":[{"role":"system","content":"You are Qwen Code."},{"role":"user","content":"go"}]}`
	if got := gjson.Parse(post(t, url+"/v1/chat/completions", main)); got.Get("choices.0.message.tool_calls.0.function.name").String() != "Bash" {
		t.Errorf("main step 0: %s", got.Raw)
	}
	if ex := s.Exchanges(); ex[0].Kind != "sub" || ex[1].Kind != "step" {
		t.Errorf("kinds %s %s", ex[0].Kind, ex[1].Kind)
	}
}
