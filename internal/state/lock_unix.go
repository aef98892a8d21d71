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
