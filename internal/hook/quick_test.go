package hook

import (
	"slices"
	"testing"
)

// TestSimpleArgs: what agents' settings hold is read without kong, and
// everything else (another flag, "--", "-", an empty word, --agent without
// a value or twice) is left to kong, whose reading of it (errors, retries
// with the positional arguments) the goldens hold.
func TestSimpleArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args       []string
		agent      string
		positional []string
	}{
		{nil, "", nil},
		{[]string{"--agent", "gemini"}, "gemini", nil},
		{[]string{"--agent=codex", `{"a":1}`}, "codex", []string{`{"a":1}`}},
		{[]string{"Stop", "--agent", "kimi", "x"}, "kimi", []string{"Stop", "x"}},
	} {
		agent, positional, ok := simpleArgs(c.args)
		if !ok || agent != c.agent || !slices.Equal(positional, c.positional) {
			t.Errorf("simpleArgs(%q) = %q, %q, %v", c.args, agent, positional, ok)
		}
	}
	for _, args := range [][]string{
		{"--agent"}, {"--agent", ""}, {"--agent", "-x"}, {"--agent="}, {"--agent=-x"}, {"--agent", "a", "--agent", "b"},
		{"--agent=a", "--agent=b"}, {"--no-subagents"}, {"-"}, {"--"}, {"--", "x"}, {"-h"}, {"--help"}, {"--version"},
		{""}, {"x", ""}, {"--agents", "x"}, {"-1"},
	} {
		if _, _, ok := simpleArgs(args); ok {
			t.Errorf("simpleArgs(%q) took it: kong's to read", args)
		}
	}
}
