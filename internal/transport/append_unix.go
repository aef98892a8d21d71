//go:build unix

package transport

import (
	"os"
	"syscall"
)

// openAppend opens path for appending: never creating it, never following
// a final symbolic link, never blocking on a FIFO (which, without a reader,
// fails with ENXIO instead of waiting for one) and never becoming our
// controlling terminal.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
