package hook

import (
	"reflect"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// TestSplitScript: the generic lifecycle's flags come out of the arguments,
// in both spellings and anywhere before "--"; everything else stays, in
// order, for the binary's own grammar.
func TestSplitScript(t *testing.T) {
	cases := []struct {
		args, rest []string
		want       agent.Script
	}{
		{[]string{"turn_end", "--session", "b1", "--message=exit 0", "--agent", "x"},
			[]string{"turn_end", "--agent", "x"}, agent.Script{Session: "b1", Message: "exit 0"}},
		{[]string{"--tool", "Bash", "--input", `{"command":"make"}`, "--cwd=/src", "tool_start"},
			[]string{"tool_start"}, agent.Script{Tool: "Bash", Input: `{"command":"make"}`, Cwd: "/src"}},
		{[]string{"error", "--message", "--session"}, []string{"error"}, agent.Script{Message: "--session"}},
		{[]string{"turn_end", "--", "--session", "x"}, []string{"turn_end", "--", "--session", "x"}, agent.Script{}},
		{[]string{"Stop", "--sessions", "x", "--session"}, []string{"Stop", "--sessions", "x"}, agent.Script{}},
		{nil, nil, agent.Script{}},
	}
	for _, tc := range cases {
		rest, got := splitScript(tc.args)
		if !reflect.DeepEqual(rest, tc.rest) || got != tc.want {
			t.Errorf("splitScript(%q) = %q, %+v; want %q, %+v", tc.args, rest, got, tc.rest, tc.want)
		}
	}
}

// TestParseWrap: wrap's own flags before the command, the command's after
// it (or after "--"); anything else goes to kong for its explanation.
func TestParseWrap(t *testing.T) {
	cases := []struct {
		args []string
		want wrapCLI
		ok   bool
	}{
		{[]string{"--session=b1", "--name", "Build it", "--", "make", "--name", "x"},
			wrapCLI{Session: "b1", Name: "Build it", Command: []string{"make", "--name", "x"}}, true},
		{[]string{"make", "-j8", "--session", "x"}, wrapCLI{Command: []string{"make", "-j8", "--session", "x"}}, true},
		{[]string{"--", "-weird"}, wrapCLI{Command: []string{"-weird"}}, true},
		{[]string{"--relay"}, wrapCLI{Relay: true}, true},
		{[]string{}, wrapCLI{}, true},
		{[]string{"--sesion", "x", "--", "make"}, wrapCLI{}, false},
		{[]string{"--name"}, wrapCLI{}, false},
		{[]string{"-h"}, wrapCLI{}, false},
	}
	for _, tc := range cases {
		got, ok := parseWrap(tc.args)
		if ok != tc.ok || ok && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseWrap(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}
