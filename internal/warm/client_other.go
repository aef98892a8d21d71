//go:build !linux

package warm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// Client has no worker to hand the event to here (the warm path is Linux's:
// SO_PEERCRED, /proc), and setup writes hookwire itself in the hooks on
// these systems: it runs the hookwire beside it, with its arguments and its
// stdin, stdout and stderr, and exits as it does.
func Client() {
	exe, err := os.Executable()
	if err != nil {
		os.Exit(0) // a hook fails open
	}
	name := "hookwire"
	if filepath.Ext(exe) == ".exe" {
		name += ".exe"
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(exe), name), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	os.Exit(0)
}
