//go:build !unix

package rawfile

import "os"

// Open is os.OpenFile where the poller's attempt costs nothing extra.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
