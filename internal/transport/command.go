package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Command runs a program and waits for it. Its output is swallowed (the first
// KiB is kept for the debug log); at the deadline its whole process group is
// killed, so a target that forks a helper which hangs cannot keep us alive.
type Command struct {
	Argv []string
}

// Describe is the command line, as a shell would echo it.
func (c Command) Describe() string { return strings.Join(c.Argv, " ") }

// Summary is the command line: commands carry no secrets and no prompt text.
func (c Command) Summary() string { return "exec " + c.Describe() }

// waitDelay bounds the wait for output pipes held open by a grandchild that
// left the process group.
const waitDelay = 100 * time.Millisecond

// Do runs the command. A hand-over does not cut it short (late.go): it
// may have done its work, and would do it again.
func (c Command) Do(ctx context.Context) (Reply, error) {
	if len(c.Argv) == 0 {
		return Reply{}, errors.New("no command")
	}
	if Queued(ctx, c) {
		return Reply{}, ErrHandedOver
	}
	ctx = Uninterrupted(ctx)
	out := &capWriter{n: 1 << 10}
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out // stdin stays /dev/null
	started, err := runChild(cmd)
	if !started {
		return Reply{}, err
	}

	reply := Reply{Status: cmd.ProcessState.ExitCode(), Body: out.b}
	switch {
	case ctx.Err() != nil:
		return reply, fmt.Errorf("%s killed: %w", c.Argv[0], ErrDeadline)
	case err != nil:
		if line := firstLine(out.b); line != "" {
			return reply, fmt.Errorf("%w: %s", err, line)
		}
		return reply, err
	}
	return reply, nil
}

// Kind names Command for the courier (late.go).
func (c Command) Kind() string { return "command" }

// Resume: a command has no connection to go on from.
func (c Command) Resume(context.Context, net.Conn, []byte) (Reply, error) {
	return Reply{}, errors.New("a command is not resumed")
}

func firstLine(b []byte) string {
	b, _, _ = bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(b)
}

// children are the commands running now, so that the runtime's last-resort
// watchdog can kill them before it exits.
var children = &running{m: map[*exec.Cmd]bool{}}

type running struct {
	mu sync.Mutex
	m  map[*exec.Cmd]bool
}

func (r *running) add(c *exec.Cmd)    { r.mu.Lock(); r.m[c] = true; r.mu.Unlock() }
func (r *running) remove(c *exec.Cmd) { r.mu.Lock(); delete(r.m, c); r.mu.Unlock() }

// KillAll kills every command still running, with its process group.
func KillAll() {
	children.mu.Lock()
	defer children.mu.Unlock()
	for c := range children.m {
		if c.Cancel != nil {
			_ = c.Cancel()
		}
	}
}

// runChild runs cmd in a process group of its own, known to the watchdog
// (children) while it runs, so that a deadline kills the whole group.
// started is false when it could not even start.
func runChild(cmd *exec.Cmd) (started bool, err error) {
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return false, err
	}
	children.add(cmd)
	err = cmd.Wait()
	children.remove(cmd)
	return true, err
}
