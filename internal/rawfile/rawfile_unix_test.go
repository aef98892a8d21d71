//go:build unix

package rawfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hookwire/hookwire/internal/rawfile"
)

// TestDescriptor checks the descriptor Open makes: close-on-exec (a hook
// starts processes, which must not inherit its state files) and blocking.
// What it saves, the poller's attempt, shows in system calls, not here:
// the count of an event's system calls in docs/performance.md.
func TestDescriptor(t *testing.T) {
	f, err := rawfile.Open(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("F_GETFD %#x, %v: want FD_CLOEXEC", flags, err)
	}
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("F_GETFL %#x, %v: want a blocking file", fl, err)
	}
}
