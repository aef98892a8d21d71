//go:build unix

package transcript

import (
	"io/fs"
	"os"
	"syscall"
)

// fileID identifies the file behind a path: a transcript replaced by another
// file of the same name is read from the start.
func fileID(_ *os.File, fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
