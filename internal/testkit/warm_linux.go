package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"

	"github.com/hookwire/hookwire/internal/warm"
)

// cmdWarmReady waits (up to 10 s) for a warm worker to answer on the
// script's socket ($XDG_RUNTIME_DIR/hookwire/warm/sock), and writes its pid
// to PIDFILE if one is given; with !, it waits for none to answer.
func cmdWarmReady(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 1 {
		ts.Fatalf("usage: [!] warm-ready [PIDFILE]")
	}
	sock := filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "hookwire", warm.Store, warm.SocketName)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pid := WarmPing(sock)
		if pid > 0 && !neg {
			if len(args) == 1 {
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strconv.Itoa(pid)+"\n"), 0o600))
			}
			return
		}
		if pid == 0 && neg {
			return
		}
		if time.Now().After(end) {
			if neg {
				ts.Fatalf("a warm worker (pid %d) still answers on %s", pid, sock)
			}
			ts.Fatalf("no warm worker answers on %s", sock)
		}
	}
}

// WarmPing asks the worker on sock the question a starter asks (an empty
// request, which it refuses at once) and returns its pid, 0 when none
// answers within a second.
func WarmPing(sock string) int {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	d, err := unix.Open(filepath.Dir(sock), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(d)
	// Through the directory's descriptor: a script's paths are too long
	// for a socket address.
	if unix.Connect(fd, &unix.SockaddrUnix{Name: "/proc/self/fd/" + strconv.Itoa(d) + "/" + filepath.Base(sock)}) != nil {
		return 0
	}
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0
	}
	tv := unix.Timeval{Sec: 1}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.Write(fd, []byte{0, 0, 0, 0})
	var b [1]byte
	if n, _ := unix.Read(fd, b[:]); n != 1 || b[0] != warm.Refused {
		return 0
	}
	return int(cred.Pid)
}

// StopWarm ends the warm workers whose state is under runDir (their
// XDG_RUNTIME_DIR), busy or not, and their successors: a script's are
// ended with it, before its directory is removed under them.
func StopWarm(runDir string) {
	mark := []byte("\x00XDG_RUNTIME_DIR=" + runDir + "\x00")
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		found := false
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			pid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
			if !bytes.Contains(cmdline, []byte("\x00warm")) {
				continue
			}
			environ, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
			if bytes.Contains(append([]byte{0}, environ...), mark) {
				unix.Kill(pid, unix.SIGKILL)
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// WarmSettled waits (up to within) until the warm workers under runDir have
// delivered what they took: each holds its session's order lock
// (internal/hook's first.go) from before it lets the agent go until it has
// delivered. A script that reads what the surfaces got once the agent has
// exited reads it after this, as it read it after the hooks' exit before.
func WarmSettled(runDir string, within time.Duration) {
	locks, _ := filepath.Glob(filepath.Join(runDir, "hookwire", warm.Store, "*.order.lock"))
	end := time.Now().Add(within)
	for _, l := range locks {
		f, err := os.Open(l)
		if err != nil {
			continue
		}
		for time.Now().Before(end) {
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
				unix.Flock(int(f.Fd()), unix.LOCK_UN)
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		f.Close()
	}
}
