//go:build unix

package coral

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const uuid = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"

func TestParseSession(t *testing.T) {
	for _, c := range []struct {
		name      string
		ok        bool
		typ, uuid string
	}{
		{"claude-" + uuid, true, "claude", uuid},
		{"my_agent2-" + uuid, true, "my_agent2", uuid},
		{"Gemini-" + strings.ToUpper(uuid), true, "Gemini", strings.ToUpper(uuid)},
		{"-" + uuid, false, "", ""},
		{uuid, false, "", ""},
		{"claude-" + uuid + "x", false, "", ""},
		{"claude-" + strings.Replace(uuid, "-", "_", 1), false, "", ""},
		{"claude-" + strings.Replace(uuid, "d", "g", 1), false, "", ""},
		{"cla.ude-" + uuid, false, "", ""},
		{"my-agent-" + uuid, false, "", ""},
		{"", false, "", ""},
		{"main", false, "", ""},
	} {
		s, ok := ParseSession(c.name)
		if ok != c.ok || s.Type != c.typ || s.UUID != c.uuid {
			t.Errorf("ParseSession(%q) = %+v, %v", c.name, s, ok)
		}
	}
}

func TestLogDirs(t *testing.T) {
	env := func(tmp string) func(string) string {
		return func(k string) string {
			if k == "TMPDIR" {
				return tmp
			}
			return ""
		}
	}
	for tmp, want := range map[string]string{
		"":                       "/tmp",
		"/tmp/":                  "/tmp",
		"/var/folders/xy/T/":     "/var/folders/xy/T /tmp",
		"/run/user/1000/tmp/../": "/run/user/1000 /tmp",
	} {
		if got := strings.Join(LogDirs(env(tmp)), " "); got != want {
			t.Errorf("TMPDIR=%q: %q, want %q", tmp, got, want)
		}
	}
}

// fakeTmux puts a tmux on PATH that records its arguments and prints out.
func fakeTmux(t *testing.T, out string, code int) (argv string) {
	dir := t.TempDir()
	log := filepath.Join(dir, "argv")
	script := "#!/bin/sh\necho \"$@\" >> " + log + "\nprintf '%s\\n' '" + out + "'\nexit " + string(rune('0'+code)) + "\n"
	os.WriteFile(filepath.Join(dir, "tmux"), []byte(script), 0o755)
	t.Setenv("PATH", dir)
	return log
}

func finder(env map[string]string, dirs ...string) (Finder, *[]string) {
	var notes []string
	return Finder{
		Getenv: func(k string) string { return env[k] },
		Dirs:   dirs,
		Notef:  func(f string, a ...any) { notes = append(notes, f) },
	}, &notes
}

// CORAL_SESSION_NAME first; tmux only without it.
func TestSessionFromEnv(t *testing.T) {
	argv := fakeTmux(t, "codex-"+uuid, 0)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "claude_coral_"+uuid+".log"), nil, 0o600)
	f, _ := finder(map[string]string{EnvSession: "claude-" + uuid, EnvPane: "%3"}, dir)
	s, err := f.Session(context.Background())
	if err != nil || s.Name != "claude-"+uuid || s.From != EnvSession {
		t.Fatalf("%+v, %v", s, err)
	}
	if _, err := os.Stat(argv); err == nil {
		t.Errorf("tmux ran though CORAL_SESSION_NAME was set")
	}
}

func TestSessionFromTmux(t *testing.T) {
	argv := fakeTmux(t, "codex-"+uuid, 0)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "codex_coral_"+uuid+".log"), nil, 0o600)
	f, notes := finder(map[string]string{EnvSession: "not-a-session", EnvPane: "%12"}, dir)
	s, err := f.Session(context.Background())
	if err != nil || s.Name != "codex-"+uuid || s.Type != "codex" || s.From != "tmux" {
		t.Fatalf("%+v, %v", s, err)
	}
	if b, _ := os.ReadFile(argv); string(b) != "display-message -p -t %12 #{session_name}\n" {
		t.Errorf("tmux argv %q", b)
	}
	if len(*notes) != 1 {
		t.Errorf("notes %q: the malformed CORAL_SESSION_NAME should be noted", *notes)
	}
}

func TestNotCoral(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "claude_coral_"+uuid+".log"), nil, 0o600)
	for _, c := range []struct {
		name  string
		env   map[string]string
		dirs  []string
		tmux  string
		code  int
		ran   bool
		error string
	}{
		{"outside tmux", map[string]string{}, []string{dir}, "claude-" + uuid, 0, false, "no CORAL_SESSION_NAME and not in tmux"},
		{"not a pane id", map[string]string{EnvPane: "main:0"}, []string{dir}, "claude-" + uuid, 0, false, "is not a pane id"},
		// Coral is not running at all: tmux is not even asked.
		{"no Coral log anywhere", map[string]string{EnvPane: "%1"}, []string{empty}, "claude-" + uuid, 0, false, "no Coral log in"},
		{"another tmux session", map[string]string{EnvPane: "%1"}, []string{dir}, "work", 0, true, `tmux session "work" is not named`},
		{"tmux fails", map[string]string{EnvPane: "%1"}, []string{dir}, "no server running", 1, true, "asking tmux"},
	} {
		t.Run(c.name, func(t *testing.T) {
			argv := fakeTmux(t, c.tmux, c.code)
			f, _ := finder(c.env, c.dirs...)
			_, err := f.Session(context.Background())
			if !errors.Is(err, ErrNotCoral) || !strings.Contains(err.Error(), c.error) {
				t.Errorf("err %v, want %q", err, c.error)
			}
			if _, err := os.Stat(argv); (err == nil) != c.ran {
				t.Errorf("tmux ran: %v, want %v", err == nil, c.ran)
			}
		})
	}
}

// The log: the exact name in each directory first, then any agent type with
// the session's uuid.
func TestLogOrder(t *testing.T) {
	tmp, fallback := t.TempDir(), t.TempDir()
	s, _ := ParseSession("claude-" + uuid)
	f, _ := finder(nil, tmp, fallback)
	if _, err := f.Log(s); err == nil || !strings.Contains(err.Error(), "no log claude_coral_"+uuid+".log") {
		t.Errorf("no log: err %v", err)
	}
	other := filepath.Join(tmp, "pi_coral_"+uuid+".log")
	os.WriteFile(other, nil, 0o600)
	os.WriteFile(filepath.Join(tmp, "claude_coral_00000000-c016-4a5e-9d4f-0d0b1f7e2a11.log"), nil, 0o600)
	if p, err := f.Log(s); p != other {
		t.Errorf("glob: %q, %v; want %q", p, err, other)
	}
	exact := filepath.Join(fallback, "claude_coral_"+uuid+".log")
	os.WriteFile(exact, nil, 0o600)
	if p, _ := f.Log(s); p != exact {
		t.Errorf("an exact name in the second directory comes before a glob in the first: %q", p)
	}
	first := filepath.Join(tmp, "claude_coral_"+uuid+".log")
	os.WriteFile(first, nil, 0o600)
	if p, _ := f.Log(s); p != first {
		t.Errorf("$TMPDIR comes first: %q", p)
	}
	// A directory of that name is not a log.
	os.Remove(first)
	os.Mkdir(first, 0o700)
	if p, _ := f.Log(s); p != exact {
		t.Errorf("a directory was taken for the log: %q", p)
	}
}
