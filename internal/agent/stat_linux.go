package agent

import (
	"path/filepath"
	"strconv"
	"syscall"
)

// readStat reads /proc/<pid>/stat with three system calls, where
// os.ReadFile makes ten (the poller's checks, a stat for the size): a warm
// worker reads the whole walk while the agent waits for it (Remember).
func readStat(pid int) ([]byte, error) {
	fd, err := syscall.Open(filepath.Join(procRoot, strconv.Itoa(pid), "stat"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, 512)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}
