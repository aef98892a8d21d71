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
