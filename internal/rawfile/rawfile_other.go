//go:build !unix

package rawfile

import "os"

// Open is os.OpenFile: the poller's attempt on a regular file is a Unix
// cost (Linux's; macOS and the BSDs skip it).
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
