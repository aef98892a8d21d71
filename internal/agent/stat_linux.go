package agent

import (
	"path/filepath"
	"strconv"
	"syscall"
)

// readStat reads /proc/<pid>/stat with three system calls, where
// os.ReadFile makes ten (the poller's checks, a stat for the size): the
// walk up the process tree reads one per ancestor while the agent waits.
// One read takes the line whole: the kernel writes it at once, and its 52
// fields fit in the buffer (what Process reads of it comes first anyway).
func readStat(pid int) ([]byte, error) {
	fd, err := syscall.Open(filepath.Join(procRoot, strconv.Itoa(pid), "stat"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	b := make([]byte, 2048)
	n, err := syscall.Read(fd, b)
	for err == syscall.EINTR {
		n, err = syscall.Read(fd, b)
	}
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}
