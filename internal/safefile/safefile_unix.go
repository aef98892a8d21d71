//go:build unix

package safefile

import (
	"io/fs"
	"syscall"
)

// noFollow: not through a final link, not waiting for a FIFO's other end
// (a FIFO without a reader fails with ENXIO), never our controlling terminal.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY

// precheck: O_NOFOLLOW does it at the open.
func precheck(string) error { return nil }

func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
