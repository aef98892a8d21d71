//go:build unix

package hook

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forwarded are the signals wrap passes on to the command. The stop
// signals (SIGTSTP, SIGTTIN, SIGTTOU) are not caught: a ^Z stops wrap and
// the command together, as it stops any job, and the shell's fg resumes both.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP,
	syscall.SIGWINCH, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM}

// fromTerminal are the signals a terminal sends to its whole foreground
// process group: when wrap is in that group, so is the command, which has
// already had its own copy.
var fromTerminal = map[os.Signal]bool{syscall.SIGINT: true, syscall.SIGQUIT: true,
	syscall.SIGWINCH: true, syscall.SIGHUP: true}

var interrupt os.Signal = syscall.SIGINT

// forward passes s on to the command, unless the terminal already did.
func forward(p *os.Process, s os.Signal) {
	if fromTerminal[s] && inForeground() {
		return
	}
	p.Signal(s)
}

// inForeground reports whether our process group is its terminal's
// foreground group.
func inForeground() bool {
	for _, fd := range []int{0, 1, 2} {
		if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil {
			return pg == unix.Getpgrp()
		}
	}
	return false
}

// exitStatus is the command's exit status as a shell reports it (128+N for
// a signal), and the signal that ended it, if one did.
func exitStatus(ps *os.ProcessState) (int, os.Signal) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal()
	}
	return ps.ExitCode(), nil
}

func signalName(s os.Signal) string {
	if sig, ok := s.(syscall.Signal); ok {
		if name := unix.SignalName(sig); name != "" {
			return name
		}
		return "signal " + strconv.Itoa(int(sig))
	}
	return s.String()
}

// dieOf ends wrap by the signal that ended the command, so that the shell
// sees what it would have seen (bash stops a script on a child's SIGINT
// death, not on a status of 130). Only for the signals whose default Go
// leaves as a plain death; for the rest the caller exits 128+N, which Go
// would otherwise turn into a stack dump on our stderr.
func dieOf(s os.Signal) {
	switch s {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL:
	default:
		return
	}
	signal.Reset(s)
	syscall.Kill(os.Getpid(), s.(syscall.Signal))
	time.Sleep(100 * time.Millisecond) // it arrives; if not, exit 128+N
}

// background lowers the relay's priority, and its deliveries' (they
// inherit it): on a busy machine the command comes first.
func background() { unix.Setpriority(unix.PRIO_PROCESS, 0, 10) }
