package live

import (
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// The remote tests (remote_*.txtar, issue 22): testkit's `sshd` is the
// remote machine (a real OpenSSH server logging in as the test accounts),
// the script itself (root) the desktop. A remote command gets the HOME the
// script made for it and $REMOTE_BIN first on its PATH, as a dev box's
// account has its own home and its own binaries; these commands build it
// quoted for the remote shell, which reads the command line ssh sends.

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// remoteEnv is the remote command prefix that runs a program in HOME's
// project directory with that HOME, $REMOTE_BIN first on PATH, and the
// given variables. A HOME holding %u is the same prefix for every account:
// the remote shell puts the account's name there ($(id -un)), so that one
// `hookwire remote --command … devbox devbox2` reaches each host's HOME.
func remoteEnv(ts *testscript.TestScript, home string, vars []string) string {
	words := []string{"env", "-C", home + "/proj", "HOME=" + home,
		"PATH=" + ts.Getenv("REMOTE_BIN") + ":/usr/bin:/bin", "TERM=dumb", "GORACE=" + raceOptions}
	out := make([]string, 0, len(words)+len(vars))
	for _, w := range append(words, vars...) {
		if strings.Contains(w, "%u") && shellQuote(strings.ReplaceAll(w, "%u", "u")) == strings.ReplaceAll(w, "%u", "u") {
			out = append(out, `"`+strings.ReplaceAll(w, "%u", "$(id -un)")+`"`)
			continue
		}
		out = append(out, shellQuote(w))
	}
	return strings.Join(out, " ")
}

// cmdRemoteEnv: remote-env VAR HOME [K=V]...
// Sets $VAR to the remote command prefix for HOME (see remoteEnv), and
// $VAR_RELAY to it followed by `hookwire relay`: what `hookwire remote
// --command` runs over ssh. Each is one word: `exec ssh devbox $VAR
// hookwire install --agent claude`.
func cmdRemoteEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: remote-env VAR HOME [K=V]...")
	}
	prefix := remoteEnv(ts, args[1], args[2:])
	ts.Setenv(args[0], prefix)
	ts.Setenv(args[0]+"_RELAY", prefix+" hookwire relay")
}

// cmdRemoteAgent: remote-agent [agent flags] NAME HOST HOME [K=V]... -- PROGRAM ARGS...
// Runs a real agent on the remote machine, as `agent` runs one here
// ($WORK/NAME.stdout and .stderr, the timeout, the exit status checked):
// `ssh -T HOST` with the command built by remoteEnv, each word quoted.
// Its ssh is not the wrapper on PATH but OpenSSH's own with the test's
// config, so that `sshd down` leaves it: the agent's own terminal (a tmux
// on the dev box) is not the desktop's link.
func cmdRemoteAgent(ts *testscript.TestScript, neg bool, args []string) {
	var flags []string
	for len(args) > 1 && strings.HasPrefix(args[0], "-") && args[0] != "--" {
		flags, args = append(flags, args[0], args[1]), args[2:]
	}
	sep := -1
	for i, a := range args {
		if a == "--" {
			sep = i
			break
		}
	}
	if sep < 3 || sep == len(args)-1 {
		ts.Fatalf("usage: remote-agent [agent flags] NAME HOST HOME [K=V]... -- PROGRAM ARGS...")
	}
	name, host, home := args[0], args[1], args[2]
	words := []string{remoteEnv(ts, home, args[3:sep])}
	for _, a := range args[sep+1:] {
		words = append(words, shellQuote(a))
	}
	ssh, err := exec.LookPath("ssh") // this process's PATH: not the wrapper
	if err != nil {
		ts.Fatalf("remote-agent: %v", err)
	}
	cmdAgent(ts, neg, append(flags, name, ssh, "-F", ts.Getenv("SSH_CONFIG"), "-T", host, strings.Join(words, " ")))
}
