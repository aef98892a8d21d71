package testkit

import (
	"fmt"
	"os"
	"testing"
)

// The remote tests (issue 22) need a real "remote machine": a real OpenSSH
// server on a loopback port, logging in as local accounts other than the
// test's own, so that the agent, its hooks and `hookwire relay` run as
// another uid with a HOME of their own, exactly as on an SSH dev box, while
// the test (root) is the desktop. SSHD is that server.
//
// It is Debian's sshd (openssh-server) with a configuration of its own
// (nothing of /etc/ssh is read): its own host key, one client key, the
// accounts of RemoteHosts only, keys only, no PAM. The client side is what a
// user has: an ssh_config with a Host alias per account (devbox, devbox2),
// and an `ssh` on PATH (a wrapper adding -F that config), so that
// `hookwire remote devbox` runs the ssh a user's would.

// RemoteHost is one "remote machine": an ssh alias and the local account it
// logs in as.
type RemoteHost struct {
	Alias, User string
	UID, GID    int
}

// RemoteHosts are the remote tests' accounts, created by .ci/system
// (useradd -m -s /bin/sh -p '*').
var RemoteHosts = []RemoteHost{
	{Alias: "devbox", User: "hookwire-remote"},
	{Alias: "devbox2", User: "hookwire-remote2"},
}

// EnvRemoteTest, set to 1 (as .ci/run does when root), turns every skip of
// the remote tests into a failure: CI must not pass them by skipping.
const EnvRemoteTest = "HOOKWIRE_REMOTE_TEST"

// RequireSSHD skips t when the remote tests cannot run here, or fails it
// when HOOKWIRE_REMOTE_TEST=1 says they must.
func RequireSSHD(t testing.TB) {
	t.Helper()
	if why := SSHDUnavailable(); why != "" {
		if os.Getenv(EnvRemoteTest) == "1" {
			t.Fatalf("%s=1, and %s", EnvRemoteTest, why)
		}
		t.Skip(why)
	}
}

// sshdCondition is the script condition [sshd]: the remote tests can run
// here. Where they cannot while HOOKWIRE_REMOTE_TEST=1, it is an error (the
// script fails, saying why) rather than false (a skip).
func sshdCondition() (bool, error) {
	why := SSHDUnavailable()
	if why != "" && os.Getenv(EnvRemoteTest) == "1" {
		return false, fmt.Errorf("%s=1, and %s", EnvRemoteTest, why)
	}
	return why == "", nil
}
