package hookwire_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
)

// A permission request waits for the person at the notch, and no longer than
// its budget: against an app that never answers, nb-hook gives up at the
// configured timeout, prints nothing and exits 0.
func TestNbHookApprovalBounded(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "nb-hook"), "--decision-timeout", "1s")
	cmd.Env = append(baseEnv(dir), coucouTarget(t, dir, "hang")...)
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"/w","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took < time.Second || took > time.Second+margin || stdout.Len() > 0 {
		t.Errorf("took %v (budget 1s), stdout %q", took, stdout.Bytes())
	}
}

// An app that is not running costs a hook nothing: with no socket (on
// Windows, no pipe) nb-hook gives up within 300 ms of its own clock, the
// connect budget, prints nothing and exits 0, for an event and for an
// approval (the agent then asks in its own terminal).
func TestNbHookNoAppAtOnce(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, payload := range []string{
		`{"session_id":"s1","cwd":"/w","hook_event_name":"Stop"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`,
	} {
		dir := t.TempDir()
		log := filepath.Join(dir, "log")
		cmd := exec.Command(filepath.Join(bin, "nb-hook"))
		cmd.Env = append(baseEnv(dir), coucouTarget(t, dir, "refuse")...)
		cmd.Env = append(cmd.Env, "PULSE_LOG="+log)
		cmd.Stdin = strings.NewReader(payload)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("exit %v, output %q", err, out)
		}
		b, _ := os.ReadFile(log)
		var line struct {
			Outcome string  `json:"outcome"`
			MS      float64 `json:"ms"`
		}
		if err := json.Unmarshal(b, &line); err != nil || line.Outcome != "failed" {
			t.Fatalf("log line %s: %v", b, err)
		}
		if line.MS > 300 {
			t.Errorf("%s: %v ms with no app, want at most 300: %s", payload, line.MS, b)
		}
	}
}
