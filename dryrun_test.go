package hookwire_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/testkit"
)

// snapshot lists every file and directory under dir with its size and
// modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return out
}

// PULSE_DRYRUN changes nothing on disk, in any binary, over a whole session:
// no state, no lock, no spool, no token, not even a directory.
func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range hostileTargets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := append(baseEnv(dir), h.setup(t, dir, "ok")...)
			env = append(env, "PULSE_DRYRUN=1")
			transcript := filepath.Join(dir, "t.jsonl")
			os.WriteFile(transcript, []byte(`{"type":"assistant","uuid":"u1","timestamp":"2026-11-30T09:00:00.000Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":3,"output_tokens":7}}}`+"\n"), 0o600)
			before := snapshot(t, dir)
			for _, event := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"} {
				payload := `{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","hook_event_name":"` + event + `","cwd":"/tmp","transcript_path":"` + transcript +
					`","prompt":"fix it","tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"ls"},"last_assistant_message":"done"}`
				cmd := exec.Command(filepath.Join(bin, name), h.args...)
				cmd.Env = env
				cmd.Stdin = strings.NewReader(payload)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", event, err, out)
				}
			}
			after := snapshot(t, dir)
			for p, v := range after {
				if before[p] != v {
					t.Errorf("dry run changed %s", strings.TrimPrefix(p, dir))
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("dry run removed %s", strings.TrimPrefix(p, dir))
				}
			}
		})
	}
}
