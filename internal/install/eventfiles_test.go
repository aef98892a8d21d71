//go:build unix

package install

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
)

var clineSpec = Spec{Binary: "pulse-claude", Kinds: []agent.Kind{agent.SessionStart, agent.ToolStart, agent.TurnEnd}}

// Each event file is an executable of the user's whatever the umask (Cline
// runs it by its #!), and a link planted where one goes is replaced, never
// written through.
func TestEventFilesModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks")
	os.MkdirAll(hooks, 0o700)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o600)
	os.Symlink(victim, filepath.Join(hooks, "TaskStart"))
	old := umask(0o077)
	defer umask(old)
	con := &hook.Console{Out: io.Discard, Err: io.Discard}
	a := Agents["cline"]
	err := clineSpec.eventFiles(con, a, hooks, clineSpec.eventCommands(a, "/usr/local/bin/pulse-claude"), false)
	if err == nil || !strings.Contains(err.Error(), "TaskStart") {
		t.Fatalf("a link in place of TaskStart: %v, want it refused", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Fatalf("written through the link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(hooks, "PreToolUse")); err == nil {
		t.Fatal("a file was written before the refusal: every file is checked first")
	}
	os.Remove(filepath.Join(hooks, "TaskStart"))
	if err := clineSpec.eventFiles(con, a, hooks, clineSpec.eventCommands(a, "/usr/local/bin/pulse-claude"), false); err != nil {
		t.Fatal(err)
	}
	for _, ev := range clineSpec.Events(a) {
		fi, err := os.Lstat(filepath.Join(hooks, ev))
		if err != nil || fi.Mode() != 0o755 {
			t.Errorf("%s: %v %v, want a regular file of mode 0755", ev, fi.Mode(), err)
		}
	}
}

func umask(m int) int { return syscall.Umask(m) }
