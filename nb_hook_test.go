package hookwire_test

import (
	"bytes"
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
