package safefile

import (
	"errors"
	"io/fs"
	"os"
)

// noFollow: Windows has no such flag; precheck stands in for it.
const noFollow = 0

// precheck refuses a link or reparse point before the open follows it.
func precheck(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return Check(path, fi)
	}
	return nil
}

// owner is unknown on Windows: the per-user profile directories already
// keep other users out.
func owner(fs.FileInfo) (int, bool) { return 0, false }
