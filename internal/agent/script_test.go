package agent

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestScriptSession: the flag, else the suite's variable, else the CI job,
// else the terminal pane, else the controlling terminal, and never a byte
// Pulse's CSV would drop or a pane id Trail Boss would take for its own.
func TestScriptSession(t *testing.T) {
	cases := []struct {
		name, flag string
		env        map[string]string
		tty        string
		want       string
	}{
		{"flag wins", "build-42", map[string]string{EnvSession: "x", "CI_JOB_ID": "9"}, "/dev/pts/3", "build-42"},
		{"suite variable", "", map[string]string{EnvSession: " deploy ", "CI_JOB_ID": "9"}, "", "deploy"},
		{"run by an agent", "", map[string]string{"CLAUDE_CODE_SESSION_ID": "d63ac083", "CI_JOB_ID": "9"}, "/dev/pts/3", "d63ac083"},
		{"suite variable over the agent's", "", map[string]string{EnvSession: "deploy", "GEMINI_SESSION_ID": "g-1"}, "", "deploy"},
		{"github", "", map[string]string{"GITHUB_RUN_ID": "4711", "GITHUB_JOB": "build linux", "TMUX_PANE": "%1"}, "", "github.4711.build.linux"},
		{"github needs both", "", map[string]string{"GITHUB_RUN_ID": "4711", "CI_JOB_ID": "9"}, "", "gitlab.9"},
		{"buildkite", "", map[string]string{"BUILDKITE_JOB_ID": "0190a1b2-c3d4"}, "", "buildkite.0190a1b2-c3d4"},
		{"tmux", "", map[string]string{"TMUX": "/tmp/tmux-1000/default,812,0", "TMUX_PANE": "%3"}, "/dev/pts/3", "tmux.812.3"},
		{"tmux without TMUX", "", map[string]string{"TMUX_PANE": "%3"}, "/dev/pts/3", "tty.pts.3"},
		{"wezterm", "", map[string]string{"WEZTERM_PANE": "7"}, "", "wezterm.7"},
		{"windows terminal", "", map[string]string{"WT_SESSION": "0f3e-4a"}, "", "wt.0f3e-4a"},
		{"tty", "", nil, "/dev/pts/12", "tty.pts.12"},
		{"nothing", "", nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ScriptSession(tc.flag, func(k string) string { return tc.env[k] }, func() string { return tc.tty })
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestScriptFlags: a script's flags land where an agent's payload would put
// them, by kind; with a payload on stdin they are not read at all.
func TestScriptFlags(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	flags := Script{Session: "b1", Message: "exit 3", Tool: "Bash", Input: `{"command":"make"}`, Cwd: "/src"}
	parse := func(agent, payload string, args ...string) Event {
		ev := Parse(Input{Agent: agent, Payload: []byte(payload), Args: args, Script: flags,
			Getwd: func() (string, error) { return "/elsewhere", nil }, Now: func() time.Time { return now }})
		ev.Raw = nil
		return ev
	}
	base := Event{Agent: Generic, Session: "b1", Cwd: "/src", Tool: "Bash", ToolInput: json.RawMessage(`{"command":"make"}`), Time: now, Script: true}
	for _, tc := range []struct {
		kind Kind
		set  func(*Event)
	}{
		{Prompt, func(e *Event) { e.Prompt = "exit 3" }},
		{Error, func(e *Event) { e.Error = "exit 3" }},
		{TurnEnd, func(e *Event) { e.Message = "exit 3" }},
		{ToolEnd, func(e *Event) { e.Message, e.OK = "exit 3", true }},
	} {
		want := base
		want.Kind, want.Name = tc.kind, string(tc.kind)
		tc.set(&want)
		want.AgentTool = want.Tool
		if got := parse("", "", string(tc.kind)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.kind, dump(got), dump(want))
		}
	}
	// An agent name no dialect has is a script naming itself.
	if got := parse("ci", "", "turn_end"); !got.Script || got.Session != "b1" || got.Agent != "ci" {
		t.Errorf("--agent ci: got %s", dump(got))
	}
	// Hook JSON wins: the flags are not read.
	got := parse("", `{"hook_event_name":"Stop","session_id":"s1"}`, "turn_end")
	if got.Script || got.Session != "s1" || got.Message != "" || got.Cwd != "/elsewhere" || got.Tool != "" {
		t.Errorf("with a payload: got %s", dump(got))
	}
	// So does a known agent's empty payload (Aider sends none).
	if got := parse("aider", ""); got.Script || got.Session != "elsewhere" {
		t.Errorf("aider: got %s", dump(got))
	}
	// An input that is not a JSON object is dropped.
	flags.Input = "make"
	if got := parse("", "", "tool_start"); got.ToolInput != nil {
		t.Errorf("--input make: got %s", dump(got))
	}
}
