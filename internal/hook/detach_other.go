//go:build !unix

package hook

import "os/exec"

// Elsewhere a binary does its work in the hook: noctalia, the only target
// that needs a finisher, runs on Linux.
const detachable = false

func detach(*exec.Cmd) {}
