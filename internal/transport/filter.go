package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Filter runs a program with Input on its stdin and returns what it printed
// on stdout (at most MaxOut bytes; the rest is read and dropped, so the
// program never stalls on a full pipe). Its stderr is dropped. As with
// Command, at the deadline its whole process group is killed and a
// grandchild holding the pipe open does not hold us.
//
// It runs the command a person configured (a status line before ours), so
// its Summary names no argument: a command line may hold anything.
type Filter struct {
	Argv   []string
	Input  []byte
	Env    []string // added to this process's environment
	MaxOut int
}

// Describe is the command line and the size of its input.
func (f Filter) Describe() string {
	return fmt.Sprintf("%s (%d bytes on stdin)", Command{Argv: f.Argv}.Describe(), len(f.Input))
}

// Summary names the program only.
func (f Filter) Summary() string {
	if len(f.Argv) == 0 {
		return "exec nothing"
	}
	return fmt.Sprintf("exec %s … (%d bytes in)", f.Argv[0], len(f.Input))
}

// Do runs the program.
func (f Filter) Do(ctx context.Context) (Reply, error) {
	if len(f.Argv) == 0 {
		return Reply{}, errors.New("no command")
	}
	out := &capWriter{n: f.MaxOut}
	cmd := exec.CommandContext(ctx, f.Argv[0], f.Argv[1:]...)
	cmd.Stdin = bytes.NewReader(f.Input)
	cmd.Stdout = out
	cmd.Env = append(os.Environ(), f.Env...)
	started, err := runChild(cmd)
	if !started {
		return Reply{}, err
	}
	reply := Reply{Status: cmd.ProcessState.ExitCode(), Body: out.b}
	if ctx.Err() != nil {
		return Reply{}, fmt.Errorf("%s killed: %w", f.Argv[0], ErrDeadline)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) || errors.Is(err, exec.ErrWaitDelay) {
		// A command that exits non-zero still printed what it printed, and
		// so did one whose background child still holds the pipe.
		err = nil
	}
	return reply, err
}
