package vpet

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// controllingTTY asks the kernel for our controlling terminal's device
// (kinfo_proc.e_tdev, what ps shows as TT) and names it: pseudo-terminals
// are /dev/ttysNNN, as Terminal.app and iTerm2 open them.
func controllingTTY() string {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid())
	if err != nil || kp.Eproc.Tdev == -1 {
		return ""
	}
	dev := uint64(uint32(kp.Eproc.Tdev))
	if unix.Major(dev) != 16 {
		return ""
	}
	name := fmt.Sprintf("/dev/ttys%03d", unix.Minor(dev))
	var st unix.Stat_t
	if unix.Stat(name, &st) != nil || uint64(uint32(st.Rdev)) != dev {
		return ""
	}
	return name
}
