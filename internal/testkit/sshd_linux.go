package testkit

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

const (
	sshdPath = "/usr/sbin/sshd" // sshd must be run by its absolute path (it re-executes itself)
	// privsepDir is the directory sshd chroots its unprivileged child into;
	// Debian's package creates it at boot (tmpfiles.d), a container may not
	// have it.
	privsepDir = "/run/sshd"
)

// SSHDUnavailable says why the remote tests cannot run on this machine, or
// "" when they can.
func SSHDUnavailable() string {
	if os.Geteuid() != 0 {
		return "the remote tests need root: to start an sshd that logs in as the test accounts, and to give each remote session a HOME of its own"
	}
	if _, err := os.Stat(sshdPath); err != nil {
		return "no " + sshdPath + " (Debian's openssh-server: .ci/system installs it)"
	}
	for _, p := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			return "no " + p + " on PATH (Debian's openssh-client)"
		}
	}
	shadow, _ := os.ReadFile("/etc/shadow")
	for _, h := range RemoteHosts {
		if _, err := user.Lookup(h.User); err != nil {
			return "no user " + h.User + " (.ci/system creates it)"
		}
		// sshd without PAM refuses a locked account even a key.
		for _, line := range strings.Split(string(shadow), "\n") {
			if f := strings.Split(line, ":"); len(f) > 1 && f[0] == h.User && strings.HasPrefix(f[1], "!") {
				return "the account " + h.User + " is locked (useradd's default password \"!\"), which sshd refuses: .ci/system unlocks it (usermod -p '*')"
			}
		}
	}
	return ""
}

// SSHD is a running sshd and the client side that reaches it.
type SSHD struct {
	// Dir holds everything: keys, configurations, the log, the homes and
	// the remote binaries. It is 0755, for the remote accounts read their
	// authorized keys and run their binaries from it.
	Dir  string
	Port int
	// Bin holds the `ssh` wrapper: put it first on the desktop's PATH.
	Bin string
	// Config is the client's ssh_config (Host devbox, devbox2).
	Config string
	// RemoteBin is the remote accounts' directory of programs (0755): put
	// it first on the PATH of a remote command.
	RemoteBin string
	Hosts     []RemoteHost

	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	once sync.Once
}

// StartSSHD starts an sshd on a free loopback port, with a directory of its
// own (removed by Close). Call RequireSSHD (or SSHDUnavailable) first.
func StartSSHD() (*SSHD, error) {
	if why := SSHDUnavailable(); why != "" {
		return nil, errors.New(why)
	}
	dir, err := os.MkdirTemp("", "hookwire-sshd-")
	if err != nil {
		return nil, err
	}
	s := &SSHD{Dir: dir, Bin: filepath.Join(dir, "bin"), Config: filepath.Join(dir, "ssh_config"),
		RemoteBin: filepath.Join(dir, "rbin"), done: make(chan struct{})}
	if err := s.start(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *SSHD) start() error {
	for _, h := range RemoteHosts {
		u, err := user.Lookup(h.User)
		if err != nil {
			return err
		}
		h.UID, _ = strconv.Atoi(u.Uid)
		h.GID, _ = strconv.Atoi(u.Gid)
		s.Hosts = append(s.Hosts, h)
	}
	// The remote accounts read from this tree: the authorized keys (sshd
	// opens them as the user), their programs, their homes.
	for _, d := range []string{s.Dir, s.Bin, s.RemoteBin, filepath.Join(s.Dir, "homes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(privsepDir, 0o755); err != nil {
		return err
	}
	hostKey, clientKey := filepath.Join(s.Dir, "host_key"), filepath.Join(s.Dir, "client_key")
	for _, k := range []string{hostKey, clientKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hookwire-test", "-f", k).CombinedOutput(); err != nil {
			return fmt.Errorf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		return err
	}
	authorized := filepath.Join(s.Dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o644); err != nil {
		return err
	}
	var users []string
	for _, h := range s.Hosts {
		users = append(users, h.User)
	}
	// A port that was free a moment ago; another process may take it
	// first (then sshd fails to bind, and start says so).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := filepath.Join(s.Dir, "sshd_config")
	err = os.WriteFile(conf, []byte(strings.Join([]string{
		"ListenAddress 127.0.0.1",
		"Port " + strconv.Itoa(s.Port),
		"HostKey " + hostKey,
		"PidFile " + filepath.Join(s.Dir, "sshd.pid"),
		"AuthorizedKeysFile " + authorized,
		// The tree is root's and 0755, as a test's temporary directory
		// goes; sshd's checks of who owns the path would refuse it.
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"PermitRootLogin no",
		"AllowUsers " + strings.Join(users, " "),
		"AllowTcpForwarding no",
		"AllowStreamLocalForwarding no",
		"X11Forwarding no",
		"PermitTTY no",
		"PrintMotd no",
		"PrintLastLog no",
		"UseDNS no",
		// The benchmarks open many connections in a row.
		"MaxStartups 100",
		"LogLevel VERBOSE",
	}, "\n")+"\n"), 0o644)
	if err != nil {
		return err
	}
	if out, err := exec.Command(sshdPath, "-t", "-f", conf).CombinedOutput(); err != nil {
		return fmt.Errorf("sshd -t: %v: %s", err, out)
	}
	log, err := os.Create(filepath.Join(s.Dir, "sshd.log"))
	if err != nil {
		return err
	}
	// -D: in the foreground (a child of this process, killed by Close);
	// -e: its log to stderr, that is sshd.log.
	s.cmd = exec.Command(sshdPath, "-D", "-e", "-f", conf)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// Its own process group: a Ctrl-C of the test run does not reach it
	// before Close does.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return err
	}
	go func() { s.cmd.Wait(); log.Close(); close(s.done) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-s.done:
			return fmt.Errorf("sshd exited at start: %s", s.Log())
		default:
		}
		if c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd does not listen on port %d after 10 s: %s", s.Port, s.Log())
		}
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return err
	}
	knownHosts := filepath.Join(s.Dir, "known_hosts")
	if err := os.WriteFile(knownHosts, fmt.Appendf(nil, "[127.0.0.1]:%d %s", s.Port, hostPub), 0o644); err != nil {
		return err
	}
	var cfg strings.Builder
	for _, h := range s.Hosts {
		fmt.Fprintf(&cfg, "Host %s\n", h.Alias)
		for _, o := range []string{
			"HostName 127.0.0.1",
			"Port " + strconv.Itoa(s.Port),
			"User " + h.User,
			"IdentityFile " + clientKey,
			"IdentitiesOnly yes",
			"IdentityAgent none",
			"UserKnownHostsFile " + knownHosts,
			"GlobalKnownHostsFile /dev/null",
			"StrictHostKeyChecking yes",
			"UpdateHostKeys no",
			"ControlMaster no",
			"ControlPath none",
			"ConnectTimeout 10",
			"LogLevel ERROR",
		} {
			fmt.Fprintf(&cfg, "\t%s\n", o)
		}
	}
	if err := os.WriteFile(s.Config, []byte(cfg.String()), 0o644); err != nil {
		return err
	}
	// The wrapper a user's ssh stands for: the test's config, each client's
	// pid recorded (Down kills them: the connection drops), and no
	// connection at all while Down holds (the network is gone).
	wrapper := fmt.Sprintf(`#!/bin/sh
# ssh with the remote tests' configuration (internal/testkit/sshd.go).
if [ -e %[1]s/link-down ]; then
	echo "ssh: connect to host 127.0.0.1 port %[2]d: Network is unreachable (the test took the link down)" >&2
	exit 255
fi
echo $$ >>%[1]s/ssh.pids
exec %[3]s -F %[4]s "$@"
`, s.Dir, s.Port, mustLookPath("ssh"), s.Config)
	return os.WriteFile(filepath.Join(s.Bin, "ssh"), []byte(wrapper), 0o755)
}

func mustLookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return name
	}
	p, _ = filepath.Abs(p)
	return p
}

// Host is the remote host of an alias (devbox) or account name.
func (s *SSHD) Host(name string) (RemoteHost, bool) {
	for _, h := range s.Hosts {
		if h.Alias == name || h.User == name {
			return h, true
		}
	}
	return RemoteHost{}, false
}

// Home makes a fresh HOME for a remote session: Dir/homes/NAME, with a
// project directory in it (proj, where an agent runs), both owned by the
// host's account and 0755 (the test reads what the session leaves there).
func (s *SSHD) Home(host RemoteHost, name string) (string, error) {
	home := filepath.Join(s.Dir, "homes", name)
	for _, d := range []string{home, filepath.Join(home, "proj")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return "", err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return "", err
		}
		if err := os.Chown(d, host.UID, host.GID); err != nil {
			return "", err
		}
	}
	return home, nil
}

// Install puts a program where the remote accounts run it from (RemoteBin,
// under NAME): a hard link when it can (free, even for Claude Code's 370 MB
// binary), else a copy; 0755 either way.
func (s *SSHD) Install(src, name string) error {
	dst := filepath.Join(s.RemoteBin, name)
	os.Remove(dst)
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	if err := os.Link(src, dst); err != nil {
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o005 != 0o005 {
		return fmt.Errorf("%s is %v: the remote accounts cannot run it", src, fi.Mode().Perm())
	}
	return nil
}

// Down takes the link down: every ssh client the wrapper started is killed
// (the connection drops, as when a laptop sleeps or the network goes), and
// no new one connects until Up.
func (s *SSHD) Down() error {
	if err := os.WriteFile(filepath.Join(s.Dir, "link-down"), nil, 0o644); err != nil {
		return err
	}
	s.killClients()
	return nil
}

// Up brings the link back.
func (s *SSHD) Up() error {
	return os.Remove(filepath.Join(s.Dir, "link-down"))
}

// killClients kills the ssh clients the wrapper started that still run.
func (s *SSHD) killClients() {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := os.ReadFile(filepath.Join(s.Dir, "ssh.pids"))
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			continue
		}
		// Only an ssh still: a pid reused by something else is left alone.
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) == "ssh" {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// killSessions kills what the remote sessions left running: a remote
// command has no terminal, so OpenSSH does not signal it when its connection
// goes (a relay exits at EOF; an agent would run on). Only the test
// accounts' processes that name Dir (the HOME, PATH or program a session was
// given) are killed: another test's sessions, under another Dir, are not.
func (s *SSHD) killSessions() {
	uids := map[uint32]bool{}
	for _, h := range s.Hosts {
		uids[uint32(h.UID)] = true
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+p.Name(), &st) != nil || !uids[st.Uid] {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		environ, _ := os.ReadFile("/proc/" + p.Name() + "/environ")
		if strings.Contains(string(cmdline), s.Dir) || strings.Contains(string(environ), s.Dir) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// Log is the tail of sshd's log, for a failure's message.
func (s *SSHD) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// Close kills the ssh clients (their sessions on the remote end then end:
// the relays read EOF), then sshd and what the sessions left running, and
// removes Dir.
func (s *SSHD) Close() {
	s.once.Do(func() {
		s.killClients()
		if s.cmd != nil && s.cmd.Process != nil {
			s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(5 * time.Second):
				s.cmd.Process.Kill()
				<-s.done
			}
		}
		s.killSessions()
		// A remote session's process may still be writing in its HOME
		// for a moment after its connection went.
		for i := 0; i < 20; i++ {
			if os.RemoveAll(s.Dir) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

var (
	sshdsMu sync.Mutex
	sshds   = map[*testscript.TestScript]*SSHD{}
)

// cmdSSHD drives the script's sshd (the remote tests):
//
//	sshd start            starts it: PATH gets the ssh wrapper first, and
//	                      SSHD_DIR, SSH_CONFIG, SSHD_PORT and REMOTE_BIN are set
//	sshd home VAR HOST [NAME]  a fresh HOME owned by HOST's account (devbox
//	                      or devbox2), with a project directory proj, in $VAR
//	                      ($SSHD_DIR/homes/NAME, by default VAR in lower case)
//	sshd install FILE [NAME]  FILE into $REMOTE_BIN (as NAME)
//	sshd down | up        takes the link down (kills the ssh clients, refuses
//	                      new ones) or brings it back
//	sshd down-when FILE REGEXP  takes it down, in the background, as soon as
//	                      FILE (a fake's record) matches REGEXP
//	sshd log FILE         writes sshd's log to FILE
//
// sshd is stopped, and its directory removed, when the script ends. Use the
// condition [sshd] (Condition) to skip where it cannot run.
func cmdSSHD(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: sshd start|home|install|down|down-when|up|log ...")
	}
	sshdsMu.Lock()
	s := sshds[ts]
	sshdsMu.Unlock()
	if args[0] != "start" && s == nil {
		ts.Fatalf("sshd %s: no sshd started", args[0])
	}
	switch args[0] {
	case "start":
		if s != nil || len(args) != 1 {
			ts.Fatalf("usage: sshd start (once)")
		}
		s, err := StartSSHD()
		if err != nil {
			ts.Fatalf("sshd: %v", err)
		}
		ts.Defer(func() {
			s.Close()
			sshdsMu.Lock()
			delete(sshds, ts)
			sshdsMu.Unlock()
		})
		sshdsMu.Lock()
		sshds[ts] = s
		sshdsMu.Unlock()
		ts.Setenv("PATH", s.Bin+string(os.PathListSeparator)+ts.Getenv("PATH"))
		ts.Setenv("SSHD_DIR", s.Dir)
		ts.Setenv("SSHD_PORT", strconv.Itoa(s.Port))
		ts.Setenv("SSH_CONFIG", s.Config)
		ts.Setenv("REMOTE_BIN", s.RemoteBin)
	case "home":
		if len(args) != 3 && len(args) != 4 {
			ts.Fatalf("usage: sshd home VAR HOST [NAME]")
		}
		h, ok := s.Host(args[2])
		if !ok {
			ts.Fatalf("sshd home: no remote host %q", args[2])
		}
		name := strings.ToLower(args[1])
		if len(args) == 4 {
			name = args[3]
		}
		home, err := s.Home(h, name)
		if err != nil {
			ts.Fatalf("sshd home: %v", err)
		}
		ts.Setenv(args[1], home)
	case "install":
		if len(args) < 2 || len(args) > 3 {
			ts.Fatalf("usage: sshd install FILE [NAME]")
		}
		name := filepath.Base(args[1])
		if len(args) == 3 {
			name = args[2]
		}
		if err := s.Install(ts.MkAbs(args[1]), name); err != nil {
			ts.Fatalf("sshd install: %v", err)
		}
	case "down":
		ts.Check(s.Down())
	case "down-when":
		if len(args) != 3 {
			ts.Fatalf("usage: sshd down-when FILE REGEXP")
		}
		re, err := regexp.Compile(args[2])
		if err != nil {
			ts.Fatalf("sshd down-when: %v", err)
		}
		file, quit := ts.MkAbs(args[1]), make(chan struct{})
		ts.Defer(func() { close(quit) })
		// In the background: the script goes on (runs the agent) and the
		// link drops mid-session, once FILE shows the session got that far.
		go func() {
			for {
				select {
				case <-quit:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if b, _ := os.ReadFile(file); re.Match(b) {
					s.Down()
					return
				}
			}
		}()
	case "up":
		ts.Check(s.Up())
	case "log":
		if len(args) != 2 {
			ts.Fatalf("usage: sshd log FILE")
		}
		b, _ := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
	default:
		ts.Fatalf("sshd: unknown %s", args[0])
	}
}
