package hook

import (
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// TestHelpSections: --help's generated sections list every binary's
// variables, the agents' config homes and session variables, and every
// dialect, wrapped to the help's width.
func TestHelpSections(t *testing.T) {
	b := &Binary{Name: "x", Help: "X."}
	help := b.help()
	for _, v := range append(append(Env, HomeVars()...), SessionVars()...) {
		if !strings.Contains(help, v.Name) {
			t.Errorf("--help does not name %s", v.Name)
		}
	}
	for _, d := range agent.Dialects() {
		if !strings.Contains(help, "\n  "+string(d.Agent)) {
			t.Errorf("--help does not list the agent %s", d.Agent)
		}
	}
	for _, l := range strings.Split(envHelp(Env), "\n") {
		if len(l)+4 > helpWidth { // kong indents the section by 4
			t.Errorf("line too long for --help (%d): %q", len(l)+4, l)
		}
	}
}

// TestHelpOnlyForPeople: a hook does not pay for the generated sections;
// --help shows them.
func TestHelpOnlyForPeople(t *testing.T) {
	built := 0
	defer func(f func(*Binary) string) { helpText = f }(helpText)
	helpText = func(b *Binary) string { built++; return b.help() }
	run(t, nil, `{"session_id":"s"}`, "Stop")
	if built != 0 {
		t.Errorf("a hook built the --help text %d times", built)
	}
	if r := run(t, nil, "", "--help"); built != 1 || !strings.Contains(r.stdout, "Environment:") || !strings.Contains(r.stdout, "Agents (") {
		t.Errorf("--help built its text %d times; stdout %q", built, r.stdout)
	}
}

// BenchmarkHelp is what the generated sections cost: built only when a
// person asks for --help, never in a hook.
func BenchmarkHelp(b *testing.B) {
	bin := &Binary{Name: "x", Help: "X."}
	for b.Loop() {
		_ = bin.help()
	}
}
