//go:build unix

package remote

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the host's command (ssh, docker exec, …) in a process group
// of its own: stopping kills the group, whatever it started.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
