package transport

import "syscall"

// setDeathSignal asks the kernel to kill the child if we die first (an agent
// that kills its hook at its own timeout must not leave our child running).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
