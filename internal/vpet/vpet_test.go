package vpet

import (
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/agent"
)

func TestClipText(t *testing.T) {
	cjk := strings.Repeat("桌", TextLimit)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{" \n\t\u3000 ", ""}, // ideographic space is whitespace too, as in Python's strip
		{"  hi there \n", "hi there"},
		{cjk, cjk},                     // exactly the limit: kept whole
		{cjk + "宠", cjk + "…"},         // one more: cut, marked
		{" " + cjk + "宠物 ", cjk + "…"}, // stripped before counting
		{strings.Repeat("😀", 600), strings.Repeat("😀", 500) + "…"}, // runes, not UTF-16 units or bytes
		{"bad \xff byte", "bad \uFFFD byte"},
	} {
		got := ClipText(tc.in)
		if got != tc.want {
			t.Errorf("ClipText(%.20q…) = %.20q… (%d runes), want %d runes", tc.in, got, utf8.RuneCountInString(got), utf8.RuneCountInString(tc.want))
		}
	}
}

func TestEnvelopeEncoding(t *testing.T) {
	e := Envelope{V: 1, Source: "claude-code", SessionKey: "s1", Event: RunCompleted, TS: 1735689600.1234,
		Transport: Transport{PPID: 42, Cwd: "/p"},
		Payload: Payload{Title: "run completed", Answer: "<b>&</b>", AnsweredAt: ptr(Seconds(1735689599.5)),
			DurationSeconds: ptr(Seconds(0)), HadResponse: ptr(false)}}
	b, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"source":"claude-code","session_key":"s1","event":"run.completed","ts":1735689600.123,` +
		`"transport":{"ppid":42,"cwd":"/p"},"payload":{"title":"run completed","answer":"<b>&</b>",` +
		`"answered_at":1735689599.500,"duration_seconds":0.000,"had_response":false}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// A known zero and a known false are sent; unknown ones are absent.
	b, _ = (&Envelope{Payload: Payload{Title: "x"}}).Encode()
	if !strings.Contains(string(b), `"payload":{"title":"x"}`) || !strings.Contains(string(b), `"session_key":""`) {
		t.Errorf("got %s", b)
	}
}

// The payload struct is the whitelist: every key it can hold is one the
// reference lists, and no other.
func TestPayloadWhitelist(t *testing.T) {
	want := []string{"title", "agent_name", "tool_name", "tool_call_id", "preview", "prompt", "answer",
		"answered_at", "ok", "duration_seconds", "had_response", "reason", "error"}
	var got []string
	typ := reflect.TypeFor[Payload]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		got = append(got, name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("payload keys %v, want %v", got, want)
	}
	for _, e := range Events {
		if len(titles[e]) == 0 || len(titles[e]) > 40 {
			t.Errorf("%s: title %q", e, titles[e])
		}
	}
}

// TestPreview: what a tool touches, from each agent's own input as its
// dialect names it.
func TestPreview(t *testing.T) {
	for _, tc := range []struct {
		agent    agent.Agent
		tool, in string
		want     string
	}{
		{agent.Claude, "Bash", `{"command":"go test ./...","description":"Run the tests"}`, "go test ./..."},
		{agent.Claude, "Edit", `{"file_path":"/a/main.go","old_string":"secret","new_string":"x"}`, "/a/main.go"},
		{agent.Claude, "Write", `{"file_path":"/a/new.go","content":"package main"}`, "/a/new.go"},
		{agent.Claude, "Grep", `{"pattern":"TODO","path":"/a"}`, "TODO"},
		{agent.Gemini, "read_file", `{"absolute_path":"/a/b.txt"}`, "/a/b.txt"},
		{agent.Gemini, "web_fetch", `{"prompt":"Summarize https://go.dev/doc/ in a line"}`, "https://go.dev/doc/"},
		{agent.Antigravity, "run_command", `{"CommandLine":"npm test","Cwd":"/a"}`, "npm test"},
		{agent.Antigravity, "write_to_file", `{"TargetFile":"/a/x.ts","CodeContent":"…"}`, "/a/x.ts"},
		{agent.Codex, "shell", `{"command":["bash","-lc","cargo test"]}`, "cargo test"}, // argv: the script
		{agent.Codex, "local_shell", `{"command":["ls","-la"]}`, "ls -la"},
		{agent.Copilot, "grep", `{"pattern":"TODO","path":"/a"}`, "TODO"}, // path is a directory there
		{agent.Copilot, "view", `{"path":"/a/b.go"}`, "/a/b.go"},
		{agent.Claude, "Agent", `{"description":"Explore the repo","prompt":"a long brief","subagent_type":"Explore"}`, "Explore the repo"},
		{agent.Gemini, "invoke_agent", `{"agent_name":"codebase_investigator","prompt":"Where is it?"}`, "codebase_investigator"}, // recorded
		{agent.Claude, "Write", `{"content":"all of a file"}`, ""},
		{agent.Claude, "Bash", `{"command":"echo a\n\necho b"}`, "echo a echo b"},
		{agent.Claude, "Bash", `{"command":""}`, ""},
		{agent.Claude, "Bash", ``, ""},
		{agent.Claude, "Bash", `{"command":"` + strings.Repeat("x", 300) + `"}`, strings.Repeat("x", PreviewLimit-1) + "…"},
	} {
		ev := toolEvent(tc.agent, tc.tool, tc.in)
		if got := Preview(ev.ToolInput); got != tc.want {
			t.Errorf("%s %s: Preview(%s) = %q, want %q", tc.agent, tc.tool, ev.ToolInput, got, tc.want)
		}
	}
}

// toolEvent is a tool's event as the agent's dialect makes it from the
// agent's own tool name and input.
func toolEvent(a agent.Agent, tool, input string) agent.Event {
	p := `{"hook_event_name":"PreToolUse","tool_name":` + strconv.Quote(tool)
	if input != "" {
		p += `,"tool_input":` + input
	}
	return agent.Parse(agent.Input{Agent: string(a), Payload: []byte(p + "}")})
}

func TestErrors(t *testing.T) {
	if got := ToolError("Exit code 1\nFAIL: TestX\n  secret output"); got != "Exit code 1" {
		t.Errorf("ToolError = %q", got)
	}
	if got := ToolError("\n\n  \nboom"); got != "boom" {
		t.Errorf("ToolError = %q", got)
	}
	for _, tc := range []struct{ typ, msg, want string }{
		{"ValueError", "bad value", "ValueError: bad value"},
		{"rate_limit", "", "rate_limit"},
		{"", "the API is down", "the API is down"},
		{"rate_limit", "rate_limit: slow down", "rate_limit: slow down"},
		{"", "", ""},
	} {
		if got := RunError(tc.typ, tc.msg); got != tc.want {
			t.Errorf("RunError(%q, %q) = %q, want %q", tc.typ, tc.msg, got, tc.want)
		}
	}
}

func TestSwitches(t *testing.T) {
	on := func(s Switches) (evs []string) {
		for _, e := range Events {
			if s.On(e) {
				evs = append(evs, e)
			}
		}
		return evs
	}
	for _, tc := range []struct {
		spec    string
		want    []string
		unknown []string
	}{
		{"", Events, nil},
		{"run.completed,run.failed", []string{RunCompleted, RunFailed}, nil},
		{"run.* ", Events[:4], nil},
		{"-tool.*", Events[:4], nil},
		{"!tool.started,tool.completed=off", Events[:4], nil},
		{"all,-run.started", Events[1:], nil},
		{"none", nil, nil},
		{"run.started=on,run.completed=true", []string{RunStarted, RunCompleted}, nil},
		{"Run.Completed", []string{RunCompleted}, nil},
		{"run.complete,-tool.start", Events, []string{"run.complete", "-tool.start"}}, // typos silence nothing
		{"run.started=maybe", Events, []string{"run.started=maybe"}},
	} {
		s, unknown := ParseSwitches(tc.spec)
		if got := on(s); !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(unknown, tc.unknown) {
			t.Errorf("%q: on %v unknown %v, want %v %v", tc.spec, got, unknown, tc.want, tc.unknown)
		}
	}
	var zero Switches
	if !zero.On(RunStarted) || !zero.Any(ToolStarted) {
		t.Error("the zero Switches has everything on")
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSocketPath(t *testing.T) {
	for _, tc := range []struct {
		env        map[string]string
		goos, flag string
		want       string
	}{
		{map[string]string{"HOME": "/Users/me"}, "darwin", "", "/Users/me/Library/Application Support/VPet/notify.sock"},
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/me"}, "linux", "", "/run/user/1000/vpet/notify.sock"},
		{map[string]string{"HOME": "/home/me"}, "linux", "", ""},
		{map[string]string{"XDG_RUNTIME_DIR": "relative"}, "linux", "", ""},
		{map[string]string{}, "darwin", "", ""},
		{map[string]string{"AGENTICA_NOTIFY_SOCKET": "/a.sock", "XDG_RUNTIME_DIR": "/run/u"}, "linux", "", "/a.sock"},
		{map[string]string{"AGENTICA_NOTIFY_SOCKET": "/a.sock", "VPET_NOTIFY_SOCKET": "/v.sock"}, "linux", "", "/v.sock"},
		{map[string]string{"VPET_NOTIFY_SOCKET": "", "AGENTICA_NOTIFY_SOCKET": "/a.sock"}, "linux", "", "/a.sock"},
		{map[string]string{"VPET_NOTIFY_SOCKET": "~/pet.sock", "HOME": "/home/me"}, "linux", "", "/home/me/pet.sock"},
		{map[string]string{"VPET_NOTIFY_SOCKET": "/v.sock"}, "linux", "/f.sock", "/f.sock"},
		// agentica strips its values: surrounding spaces go, blank is unset.
		{map[string]string{"AGENTICA_NOTIFY_SOCKET": "  /a.sock \n"}, "linux", "", "/a.sock"},
		{map[string]string{"VPET_NOTIFY_SOCKET": " ", "AGENTICA_NOTIFY_SOCKET": "/a.sock"}, "linux", "", "/a.sock"},
		{map[string]string{"AGENTICA_NOTIFY_SOCKET": "\t", "XDG_RUNTIME_DIR": "/run/u"}, "linux", "", "/run/u/vpet/notify.sock"},
	} {
		// A path made here natively (~ expanded) has Windows's separators there.
		if got := SocketPath(env(tc.env), tc.goos, tc.flag); filepath.ToSlash(got) != tc.want {
			t.Errorf("%v %s %q: %q, want %q", tc.env, tc.goos, tc.flag, got, tc.want)
		}
	}
	for _, tc := range []struct {
		env          map[string]string
		flag, socket string
		want         string
	}{
		{nil, "", "/Users/me/Library/Application Support/VPet/notify.sock", "/Users/me/Library/Application Support/VPet/notify.token"},
		{map[string]string{"AGENTICA_NOTIFY_TOKEN_FILE": "/a.token"}, "", "/s/notify.sock", "/a.token"},
		{map[string]string{"AGENTICA_NOTIFY_TOKEN_FILE": "/a.token", "VPET_NOTIFY_TOKEN_FILE": "/v.token"}, "", "/s/notify.sock", "/v.token"},
		{map[string]string{"VPET_NOTIFY_TOKEN_FILE": "/v.token"}, "/f.token", "/s/notify.sock", "/f.token"},
		{map[string]string{"AGENTICA_NOTIFY_TOKEN_FILE": " /a.token "}, "", "/s/notify.sock", "/a.token"},
		{map[string]string{"AGENTICA_NOTIFY_TOKEN_FILE": "  "}, "", "/s/notify.sock", "/s/notify.token"},
	} {
		if got := TokenFile(env(tc.env), tc.flag, tc.socket); filepath.ToSlash(got) != tc.want {
			t.Errorf("token file %v %q %q: %q, want %q", tc.env, tc.flag, tc.socket, got, tc.want)
		}
	}
}

func TestSession(t *testing.T) {
	t0 := time.Unix(1_764_489_600, 0)
	s := DecodeSession(nil)
	s.StartRun(t0)
	s.StartTool("toolu_1", "Bash", t0.Add(time.Second), false)
	s.StartTool("", "Shell", t0.Add(2*time.Second), false)
	s = DecodeSession(s.Encode()) // across invocations
	if start, ok := s.EndTool("toolu_1", "Bash"); !ok || !start.Equal(t0.Add(time.Second)) {
		t.Errorf("EndTool: %v %v", start, ok)
	}
	if _, ok := s.EndTool("toolu_1", "Bash"); ok {
		t.Error("a tool ends once")
	}
	// Two open tools of one name without ids: neither's start is known.
	s.StartTool("", "Shell", t0.Add(3*time.Second), false)
	if _, ok := s.EndTool("", "Shell"); ok {
		t.Error("an ambiguous start was given")
	}
	s.StartTool("toolu_2", "Read", t0.Add(4*time.Second), false)
	s.StartTool("", "Grep", t0.Add(5*time.Second), false)
	if got := s.CancelTools(); !reflect.DeepEqual(got, []OpenTool{{ID: "toolu_2", Name: "Read"}, {Name: "Grep"}}) {
		t.Errorf("CancelTools = %v", got)
	}
	s.Responded()
	r := s.EndRun(false)
	if r == nil || !r.HadResponse || r.Start != t0.UnixNano() || s.Run.Open {
		t.Errorf("EndRun = %+v, run %+v", r, s.Run)
	}
	if s.EndRun(false) != nil {
		t.Error("a closed run ended twice")
	}
	if r := s.EndRun(true); r == nil || r.Start != t0.UnixNano() {
		t.Error("a continued run keeps its start")
	}
	if Since(t0, t0.Add(-time.Second)) != nil || Since(time.Time{}, t0) != nil {
		t.Error("a duration that makes no sense is unknown, not 0")
	}
	if d := Since(t0, t0.Add(1500*time.Millisecond)); d == nil || *d != 1.5 {
		t.Errorf("Since = %v", d)
	}
	if !DecodeSession([]byte("{garbage")).Empty() {
		t.Error("garbage state is not empty")
	}
	for range maxTools + 10 {
		s.StartTool(time.Now().String()+string(rune(len(s.Tools))), "X", t0, false)
	}
	if len(s.Tools) > maxTools {
		t.Errorf("%d open tools kept", len(s.Tools))
	}
}
