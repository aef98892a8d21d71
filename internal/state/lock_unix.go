//go:build unix

package state

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// TryLock takes an exclusive lock on f without waiting: false when
// another holds it. The relay's spool locks with it too.
func TryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// Unlock releases TryLock's lock.
func Unlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// openLock opens a lock file, made if missing. Not os.OpenFile, which
// tries the runtime's poller on it and sets it back to blocking: four
// system calls more on each of a hook's locks, some while the agent waits.
func openLock(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
