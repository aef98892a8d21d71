package hook

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// A finisher is this binary run again, detached, to finish after the hook has
// exited what the agent must not wait for (pulse-claude's wait, on a turn end,
// for the final message that Claude Code writes about 100 ms after its Stop
// hook fires). The agent waits for its hook's exit and for the hook's stdout
// and stderr to close; a finisher holds none of them: its stdin is a private
// copy of the payload, its stdout and stderr are /dev/null, and it runs in a
// session of its own, so that no signal for the agent's terminal or process
// group reaches it.
//
// It is bounded like the hook it finishes: its deadline is the hook's (3 s
// from the hook's start), enforced by the same watchdog, so it outlives the
// hook by less than the hook's own budget. What it sends it sends once: a
// binary that starts one does not send the event itself.
//
// Its environment names it (envFinisher = "TOKEN DEADLINE"): the token lets a
// finisher check that no later hook of the session has superseded it, the
// deadline is the hook's, in Unix milliseconds.
const envFinisher = "HOOKWIRE_FINISHER"

// ErrNoFinisher says a finisher cannot be started here: in a dry run (what
// would be sent must be printed by the hook itself), inside a finisher, or on
// a system without detached processes.
var ErrNoFinisher = errors.New("no finisher here")

// Finishing returns the token this process was started with as a finisher,
// or "" for an ordinary hook.
func (inv *Invocation) Finishing() string { return inv.finisher }

// CanFinishLater reports whether StartFinisher can work at all, so that a
// binary can decide how to do its work before doing it.
func (inv *Invocation) CanFinishLater() bool {
	return detachable && !inv.dryRun && inv.finisher == ""
}

// StartFinisher runs this binary again as a finisher, with the same arguments
// and the same payload on stdin, detached, and returns its pid. tmpDir is a
// private directory for the payload's copy, which is gone from the file
// system before StartFinisher returns.
func (inv *Invocation) StartFinisher(token, tmpDir string) (pid int, err error) {
	return inv.startFinisher(token, tmpDir)
}

// startFinisher is StartFinisher, with variables added to the finisher's
// environment.
func (inv *Invocation) startFinisher(token, tmpDir string, env ...string) (pid int, err error) {
	if !inv.CanFinishLater() || inv.Stdin().Truncated {
		// A payload cut at StdinCap would reach the finisher as broken JSON.
		return 0, ErrNoFinisher
	}
	if p := inv.parent; p != nil {
		// A surface in a combined process: its finisher is the process's
		// one (combined.go), started once every surface is done.
		r := finisherRequest{surface: inv.bin.Name, token: token}
		for _, e := range env {
			if q, ok := strings.CutPrefix(e, envLater+"="); ok {
				r.queue = q
			}
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.requests = append(p.requests, r)
		return 0, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(tmpDir, ".finisher.*.in")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	defer os.Remove(f.Name())
	if _, err := f.Write(inv.Stdin().Data); err != nil {
		return 0, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return 0, err
	}
	deadline, _ := inv.Context().Deadline()
	cmd := &exec.Cmd{
		Path:  exe,
		Args:  os.Args, // argv[0] too: a multi-call test binary dispatches on it
		Env:   append(append(os.Environ(), fmt.Sprintf("%s=%s %d", envFinisher, token, deadline.Add(reserve).UnixMilli())), env...),
		Stdin: f, // Stdout, Stderr: /dev/null
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid = cmd.Process.Pid
	cmd.Process.Release()
	inv.mu.Lock()
	inv.rec.FinisherPID = pid
	inv.mu.Unlock()
	return pid, nil
}

// asFinisher reads the finisher's environment: its token, and the budget left
// of the hook's. It clears the variable, which the targets need not see.
func (inv *Invocation) asFinisher() (budget time.Duration) {
	v, ok := os.LookupEnv(envFinisher)
	if !ok {
		return Budget
	}
	os.Unsetenv(envFinisher)
	token, ms, _ := strings.Cut(v, " ")
	n, err := strconv.ParseInt(ms, 10, 64)
	if token == "" || err != nil {
		return Budget
	}
	inv.finisher = token
	inv.rec.Finisher = true
	return min(Budget, max(0, time.UnixMilli(n).Sub(inv.start)))
}
