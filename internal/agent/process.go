package agent

import (
	"bytes"
	"os"
	"strconv"
)

// procRoot is /proc; tests point it elsewhere.
var procRoot = "/proc"

// HookProcess is the process the agent ran for this event (this one), and
// its parent; a variable, so that a test walks from where it says.
var HookProcess = func() (pid, ppid int) { return os.Getpid(), os.Getppid() }

// maxHops bounds the walk up the process tree: an agent runs a hook as
// `sh -c`, so the chain is binary → sh → agent, plus wrappers.
const maxHops = 8

// Process finds the agent's process that runs session, for surfaces that
// show or watch it: walking up from the hook's parent, the first process
// the agent's dialect says owns the session (Owns). 0 when there is none,
// no way to tell (a dialect without Owns), or no /proc to walk.
func (d *Dialect) Process(session string, getenv func(string) string) int {
	if d.Owns == nil || session == "" {
		return 0
	}
	_, pid := HookProcess()
	for range maxHops {
		if pid <= 1 {
			return 0
		}
		if d.Owns(pid, session, getenv) {
			return pid
		}
		pid = parentOf(pid)
	}
	return 0
}

// StillRuns reports whether the agent's process pid still runs session for
// this hook: its dialect says it owns the session, and it is an ancestor of
// the hook's process now, as the process Process would find. A process
// that exited, or one whose session was resumed under another process (a
// dead `claude`'s sessions file stays, naming the session), is not.
func (d *Dialect) StillRuns(pid int, session string, getenv func(string) string) bool {
	return pid > 1 && d.Owns != nil && session != "" && Ancestor(pid) && d.Owns(pid, session, getenv)
}

// Ancestor reports whether pid is the hook process's parent or one of its
// ancestors, as far as Process walks.
func Ancestor(pid int) bool {
	_, p := HookProcess()
	for range maxHops {
		if p <= 1 {
			return false
		}
		if p == pid {
			return true
		}
		p = parentOf(p)
	}
	return false
}

// Alive reports whether process pid exists, for a process (a detached
// finisher) that has no agent among its ancestors to ask.
func Alive(pid int) bool {
	_, err := ProcStat(pid)
	return pid > 1 && err == nil
}

// ProcStat is /proc/<pid>/stat.
func ProcStat(pid int) ([]byte, error) { return readStat(pid) }

// parentOf reads the parent pid from /proc/<pid>/stat.
func parentOf(pid int) int {
	b, err := ProcStat(pid)
	if err != nil {
		return 0
	}
	return ppidOf(b)
}

// ppidOf reads the parent pid of a /proc/<pid>/stat line. The command name
// in field 2 may hold spaces and parentheses, so fields are counted from the
// last ')'.
func ppidOf(b []byte) int {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, …
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}
