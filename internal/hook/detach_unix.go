//go:build unix

package hook

import (
	"os/exec"
	"syscall"
)

const detachable = true

// detach gives a process that outlives the hook (a finisher, wrap's relay) a
// session of its own: no controlling terminal, no terminal signal or hangup,
// no process group a job-control shell would stop, no signal sent to the
// agent's process group. It gets no death signal: it is meant to outlive
// us, within its own deadline.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
