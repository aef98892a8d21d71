package coral

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Coral passes no CORAL_URL or CORAL_PORT to the agents it launches; its own
// tools find a server on another port in the session's board state file.
func TestLocate(t *testing.T) {
	home := t.TempDir()
	s, _ := ParseSession("claude-d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11")
	state := filepath.Join(home, ".coral", "board_state_"+s.Name+".json")
	os.MkdirAll(filepath.Dir(state), 0o755)
	os.WriteFile(state, []byte(`{"project":"p","job_title":"Dev","server_url":"http://localhost:8455"}`), 0o644)
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "board_state_"+s.Name+".json"), []byte(`{"server_url":"http://localhost:9001/"}`), 0o644)

	for _, tc := range []struct {
		env        map[string]string
		base, from string
	}{
		{map[string]string{"HOME": home, "USERPROFILE": home}, "http://localhost:8455", state},
		{map[string]string{"HOME": home, "USERPROFILE": home, EnvDataDir: data}, "http://localhost:9001", filepath.Join(data, "board_state_"+s.Name+".json")},
		{map[string]string{"HOME": home, "USERPROFILE": home, EnvDir: data}, "http://localhost:9001", filepath.Join(data, "board_state_"+s.Name+".json")},
		{map[string]string{"HOME": home, "USERPROFILE": home, EnvPort: "8500"}, "http://localhost:8500", EnvPort},
		{map[string]string{"HOME": home, "USERPROFILE": home, EnvURL: "http://127.0.0.1:8600/", EnvPort: "8500"}, "http://127.0.0.1:8600", EnvURL},
		{map[string]string{"HOME": t.TempDir(), "USERPROFILE": t.TempDir()}, "http://localhost:8420", ""},
	} {
		base, from := Locate(context.Background(), func(k string) string { return tc.env[k] }, s)
		if base != tc.base || from != tc.from {
			t.Errorf("%v: %s from %q, want %s from %q", tc.env, base, from, tc.base, tc.from)
		}
	}
	// A board state without server_url (Coral on 8420 writes none).
	os.WriteFile(state, []byte(`{"project":"p","job_title":"Dev"}`), 0o644)
	if base, from := Locate(context.Background(), func(k string) string {
		return map[string]string{"HOME": home, "USERPROFILE": home}[k]
	}, s); base != "http://localhost:8420" || from != "" {
		t.Errorf("no server_url: %s from %q", base, from)
	}
}
