//go:build !linux

package testkit

import "github.com/rogpeppe/go-internal/testscript"

// SSHDUnavailable: the remote tests run Debian's openssh-server.
func SSHDUnavailable() string { return "the remote tests run on Linux only (Debian's openssh-server)" }

func cmdSSHD(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("sshd: %s", SSHDUnavailable())
}
