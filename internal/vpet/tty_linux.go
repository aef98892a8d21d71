package vpet

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hookwire/hookwire/internal/agent"
)

// controllingTTY reads tty_nr from /proc/<pid>/stat of the process the
// agent ran (this one) and names the device.
func controllingTTY() string {
	pid, _ := agent.HookProcess()
	b, err := agent.ProcStat(pid)
	if err != nil {
		return ""
	}
	return ttyFromStat(string(b), statRdev)
}

// ttyFromStat names the terminal of a /proc/<pid>/stat line: its 7th field
// (after the command, which may hold spaces and parentheses) is the device
// number. The name is checked against the device, since /dev may be another
// namespace's.
func ttyFromStat(stat string, rdev func(string) (uint64, bool)) string {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 5 {
		return ""
	}
	nr, err := strconv.ParseUint(f[4], 10, 64)
	if err != nil || nr == 0 {
		return ""
	}
	major, minor := unix.Major(nr), unix.Minor(nr)
	var name string
	switch {
	case major >= 136 && major <= 143: // Unix98 pty slaves
		name = fmt.Sprintf("/dev/pts/%d", (major-136)*256+minor)
	case major == 4 && minor < 64: // virtual consoles
		name = fmt.Sprintf("/dev/tty%d", minor)
	default:
		return ""
	}
	if dev, ok := rdev(name); !ok || dev != nr {
		return ""
	}
	return name
}

func statRdev(path string) (uint64, bool) {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return 0, false
	}
	return st.Rdev, true
}
