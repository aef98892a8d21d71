package combined

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/state"
)

// formerCheck is what doctor says of what the warm path of an earlier
// hookwire left behind for this user: its workers (`hookwire warm`
// processes, which an old hookwire-client hands events to while they
// run) and their socket in the state directory. A worker ends within a
// second of its socket being removed, and after half an hour without an
// event. Only the user's own are looked at: another user's processes and
// files are theirs.
func formerCheck(getenv func(string) string) []install.Finding {
	var out []install.Finding
	if pids := warmWorkers("/proc", os.Getuid()); len(pids) > 0 {
		list := strings.Join(pids, " ")
		out = append(out, install.Finding{Status: install.Warn,
			What: "warm workers of an earlier hookwire still run (pid " + list + "): no hook of this hookwire uses them",
			Fix:  "kill " + list})
	}
	sock := filepath.Join(state.Root(getenv), "warm", "sock")
	if fi, err := os.Lstat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Getuid() {
			out = append(out, install.Finding{Status: install.Warn,
				What: "the warm path's socket of an earlier hookwire is still there: " + sock,
				Fix:  "rm " + sock + " (its workers end within a second)"})
		}
	}
	return out
}

// warmWorkers are the pids, under proc, of the processes of uid whose
// command line is a hookwire's `warm` (`hookwire warm --start`, or
// `warm --serve INODE BORN`, a worker's successor).
func warmWorkers(proc string, uid int) []string {
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil
	}
	var pids []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		dir := filepath.Join(proc, e.Name())
		fi, err := os.Stat(dir)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimSuffix(cmdline, []byte{0}), []byte{0})
		if len(args) >= 2 && filepath.Base(string(args[0])) == "hookwire" && string(args[1]) == "warm" {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
