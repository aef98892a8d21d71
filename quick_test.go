package hookwire_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/coral"
	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/trailboss"
	"github.com/hookwire/hookwire/internal/vpet"
)

// quickSurfaces are the binaries whose hook grammar takes agents' command
// lines without kong (hook.Quick): every surface hookwire serves.
var quickSurfaces = map[string]func() hook.Binary{
	"pulse-claude": pulse.Claude, "nb-hook": coucou.Relay, "trailboss-hook": trailboss.Hook,
	"vpet-notify": vpet.Notify, "coral-pulse": coral.Pulse,
}

// quickLines are command lines agents' settings hold (nothing, --agent,
// an event name, Codex's notify JSON with its commas and spaces), and some
// that must stay kong's.
var quickLines = [][]string{
	{}, {"--agent", "gemini"}, {"--agent=codex"}, {"PreToolUse"}, {"turn_end"}, {"--agent", "antigravity", "pre_tool_use"},
	{"--agent", "codex", `{"type":"agent-turn-complete","input-messages":["a, b"],"last-assistant-message":"done, ok"}`},
	{"a", "b", "c"}, {"Stop", "--agent", "kimi"}, {"a,b"}, {"with space"}, {"--agent", "my-agent", "x", "y,z"},
}

// TestQuickArgsAsKong holds the grammars' QuickArgs to what kong sets from
// the same command line: the same fields, nil and empty alike, every other
// flag reset (the grammar is first filled with flags by kong, as a process
// that ran a previous event in tests would have it).
func TestQuickArgsAsKong(t *testing.T) {
	t.Parallel()
	for name, bin := range quickSurfaces {
		for _, args := range quickLines {
			want, got := bin().CLI, bin().CLI
			kongParse(t, want, args)
			dirty := []string{"--agent", "dirty"}
			switch name {
			case "pulse-claude":
				dirty = append(dirty, "--no-subagents")
			case "nb-hook":
				dirty = append(dirty, "--approvals", "--ask", "--previous", "x", "--decision-timeout", "1s")
			case "trailboss-hook":
				dirty = append(dirty, "--allow-remote")
			case "vpet-notify":
				dirty = append(dirty, "--source", "s", "--socket", "p", "--token-file", "f", "--events", "x")
			}
			kongParse(t, got, append(dirty, "e1", "e2"))
			h := got.(hook.Quick).QuickArgs(quickSplit(args))
			if h == nil {
				t.Errorf("%s %q: QuickArgs declined", name, args)
				continue
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s %q:\nkong  %#v\nquick %#v", name, args, want, got)
			}
		}
	}
}

// TestQuickArgsDeclines: a word that names one of coral-pulse's commands
// is kong's to read.
func TestQuickArgsDeclines(t *testing.T) {
	t.Parallel()
	for _, word := range []string{"hook", "status", "summary", "confidence"} {
		if h := coral.Pulse().CLI.(hook.Quick).QuickArgs("", []string{word, "x"}); h != nil {
			t.Errorf("coral-pulse took %q without kong", word)
		}
	}
}

func kongParse(t *testing.T, cli any, args []string) {
	t.Helper()
	parser, err := kong.New(cli, kong.Vars{"version": "v", "dialects": "claude"}, kong.Exit(func(int) { t.Fatal("exit") }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
}

// quickSplit is the runtime's reading of a simple command line: --agent's
// value and the positional arguments.
func quickSplit(args []string) (agentName string, positional []string) {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--agent":
			agentName = args[i+1]
			i++
		case strings.HasPrefix(args[i], "--agent="):
			agentName = strings.TrimPrefix(args[i], "--agent=")
		default:
			positional = append(positional, args[i])
		}
	}
	return agentName, positional
}
