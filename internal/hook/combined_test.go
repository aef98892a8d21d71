package hook

import (
	"slices"
	"testing"
)

// Which surface's reply reaches the agent in a combined process: one that
// decides wins over the neutral {}, and between two of a kind the surface
// named first.
func TestPickReply(t *testing.T) {
	allow := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"
	deny := `{"behavior":"deny","message":"Denied from Coucou"}` + "\n"
	for _, tc := range []struct {
		name string
		outs []string
		want int
	}{
		{"none", []string{"", "", ""}, -1},
		{"one neutral", []string{"", "{}\n", ""}, 1},
		{"neutral, then a decision", []string{"{}\n", "", allow}, 2},
		{"a decision, then neutral", []string{allow, "{}\n"}, 0},
		{"two decisions: the first named", []string{"", deny, allow}, 1},
		{"two neutral: the first named", []string{"{}\n", " {} \n"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bufs []*lockedBuffer
			for _, o := range tc.outs {
				b := &lockedBuffer{}
				b.Write([]byte(o))
				bufs = append(bufs, b)
			}
			if got := pickReply(bufs); got != tc.want {
				t.Errorf("pickReply(%q) = %d, want %d", tc.outs, got, tc.want)
			}
		})
	}
}

func TestSurfacesFlag(t *testing.T) {
	for _, tc := range []struct{ args, names, rest []string }{
		{[]string{"--surfaces", "nb-hook,vpet-notify", "--agent", "copilot", "agentStop"}, []string{"nb-hook", "vpet-notify"}, []string{"--agent", "copilot", "agentStop"}},
		{[]string{"--agent", "codex", "--surfaces=pulse-claude"}, []string{"pulse-claude"}, []string{"--agent", "codex"}},
		{[]string{"--", "--surfaces", "x"}, nil, []string{"--", "--surfaces", "x"}},
	} {
		names, rest := surfacesFlag(tc.args)
		if !slices.Equal(names, tc.names) || !slices.Equal(rest, tc.rest) {
			t.Errorf("surfacesFlag(%q) = %q, %q; want %q, %q", tc.args, names, rest, tc.names, tc.rest)
		}
	}
	flag, pos := agentArgs([]string{"--agent", "copilot", "--approvals", "agentStop"})
	if flag != "copilot" || !slices.Equal(pos, []string{"agentStop"}) {
		t.Errorf("agentArgs: %q %q", flag, pos)
	}
}
