//go:build unix

package rawfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// Open opens path with flag (os.OpenFile's) and perm, close-on-exec.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Open(path, flag|unix.O_CLOEXEC, uint32(perm.Perm()))
	for err == unix.EINTR { // as os.OpenFile: a network file system's open may be interrupted
		fd, err = unix.Open(path, flag|unix.O_CLOEXEC, uint32(perm.Perm()))
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
