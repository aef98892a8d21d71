//go:build !linux

package agent

import (
	"os"
	"path/filepath"
	"strconv"
)

// readStat reads /proc/<pid>/stat, where there is one.
func readStat(pid int) ([]byte, error) {
	return os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
}
