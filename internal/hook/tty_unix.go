//go:build unix

package hook

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// ttyName is the terminal's device: its /proc name on Linux, else its
// device number.
func ttyName(f *os.File) string {
	if name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
		return name
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return ""
	}
	return "dev" + strconv.FormatUint(uint64(st.Rdev), 10)
}
