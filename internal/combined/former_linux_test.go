package combined

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFormerWorkers: doctor names the warm workers an earlier hookwire
// left running, by their command line (`hookwire warm --start`, a
// successor's `warm --serve INODE BORN`), and only the user's own.
func TestFormerWorkers(t *testing.T) {
	proc := t.TempDir()
	for pid, cmdline := range map[string]string{
		"100":  "/home/u/.local/bin/hookwire\x00warm\x00--start\x00",
		"101":  "/home/u/.local/bin/hookwire\x00warm\x00--serve\x0012\x001764900000000\x00",
		"102":  "/home/u/.local/bin/hookwire\x00remote\x00devbox\x00",
		"103":  "/usr/bin/vim\x00warm\x00",
		"104":  "hookwire-client\x00warm\x00",
		"self": "hookwire\x00warm\x00",
	} {
		os.MkdirAll(filepath.Join(proc, pid), 0o755)
		os.WriteFile(filepath.Join(proc, pid, "cmdline"), []byte(cmdline), 0o644)
	}
	got := warmWorkers(proc, os.Getuid())
	slices.Sort(got)
	if want := []string{"100", "101"}; !slices.Equal(got, want) {
		t.Errorf("warmWorkers = %q, want %q", got, want)
	}
	if got := warmWorkers(proc, os.Getuid()+1); len(got) != 0 {
		t.Errorf("another user's view: %q, want none (the processes are not theirs)", got)
	}
}
