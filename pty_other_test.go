//go:build !linux

package hookwire_test

import (
	"os"
	"testing"
)

// openPTY is Linux-only here; elsewhere the terminal case is skipped.
func openPTY(t *testing.T) *os.File {
	t.Skip("pseudo-terminals are opened the Linux way only")
	return nil
}

func openPTYPair(t *testing.T) (ptmx, tty *os.File) {
	t.Skip("pseudo-terminals are opened the Linux way only")
	return nil, nil
}
