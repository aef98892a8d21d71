package agent

import (
	"path/filepath"
	"testing"
)

// One config-home rule: the agent's variable when set, else the user
// settings' directory above HomeRel under the home; the user settings are
// always HomeRel under it (install's Path), and the dialect's own lookups
// (Owns, Burn.Locate) use the same.
func TestConfigHome(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	for _, d := range Installable() {
		s := d.Settings
		unset := func(string) string { return "" }
		def := s.ConfigHome(unset, home)
		if got, want := filepath.Join(append([]string{def}, s.HomeRel...)...), filepath.Join(append([]string{home}, s.User...)...); got != want {
			t.Errorf("%s: the user settings under the default home are %s, want %s", d.Agent, got, want)
		}
		if s.HomeVar == "" {
			continue
		}
		moved := filepath.FromSlash("/elsewhere")
		getenv := func(k string) string {
			if k == s.HomeVar {
				return moved
			}
			return ""
		}
		if got := s.ConfigHome(getenv, home); got != moved {
			t.Errorf("%s: with %s set, ConfigHome = %s, want %s", d.Agent, s.HomeVar, got, moved)
		}
		if got := s.ConfigHome(unset, ""); got != "" {
			t.Errorf("%s: no home and no %s, ConfigHome = %q, want none", d.Agent, s.HomeVar, got)
		}
	}
	if got := claudeSettings.ConfigHome(func(string) string { return "" }, home); got != filepath.Join(home, ".claude") {
		t.Errorf("Claude Code's default home = %s", got)
	}
}

// TestCommands: hookwire setup finds an agent by its command on PATH, so
// every agent install writes hooks for names at least one.
func TestCommands(t *testing.T) {
	for _, d := range Installable() {
		if len(d.Settings.Commands) == 0 {
			t.Errorf("%s: Settings.Commands is empty: setup would find it only by its settings directory", d.Agent)
		}
	}
}
