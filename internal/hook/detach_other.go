//go:build !unix

package hook

import (
	"os/exec"
	"syscall"
)

// Elsewhere a binary does its work in the hook: noctalia, the only target
// that needs a finisher, runs on Linux.
const detachable = false

// detach keeps Ctrl+C away from wrap's relay.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | 0x08000000} // CREATE_NO_WINDOW
}
