package testkit

import (
	"os/exec"
	"path/filepath"
	"testing"
)

func TestTinyExitRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noctalia")
	if err := WriteTinyExit(path); err != nil {
		t.Skip(err)
	}
	out, err := exec.Command(path, "msg", "plugin").CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("exit: %v, output %q", err, out)
	}
}
