package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The harness itself: each alias logs in as its own account through the
// ssh on PATH (the wrapper), a remote command sees the HOME it is given and
// runs a program from RemoteBin, and Down drops a live connection and
// refuses new ones until Up.
func TestSSHD(t *testing.T) {
	RequireSSHD(t)
	s, err := StartSSHD()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ssh := func(args ...string) *exec.Cmd {
		// The wrapper, as PATH would find it first.
		return exec.Command(filepath.Join(s.Bin, "ssh"), args...)
	}
	for _, h := range s.Hosts {
		out, err := ssh("-T", h.Alias, "id -un").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != h.User {
			t.Fatalf("ssh %s id -un: %v: %q, want %s; sshd's log:\n%s", h.Alias, err, out, h.User, s.Log())
		}
	}
	h, _ := s.Host("devbox2")
	home, err := s.Home(h, "h")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Install("/bin/echo", "say"); err != nil {
		t.Fatal(err)
	}
	out, err := ssh("devbox2", "env HOME="+home+" PATH="+s.RemoteBin+":/usr/bin:/bin sh -c 'touch $HOME/mine; say hi'").CombinedOutput()
	if err != nil || string(out) != "hi\n" {
		t.Fatalf("remote command: %v: %q", err, out)
	}
	fi, err := os.Stat(filepath.Join(home, "mine"))
	if err != nil {
		t.Fatal(err)
	}
	if uid := fi.Sys().(*syscall.Stat_t).Uid; int(uid) != h.UID {
		t.Errorf("the remote session's file is uid %d's, want %d (%s)", uid, h.UID, h.User)
	}

	// Named by the harness's directory: Close kills it (a remote command
	// outlives its dropped connection).
	live := ssh("devbox", "env HOME="+s.Dir+" sleep 60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	gone := make(chan error, 1)
	go func() { gone <- live.Wait() }()
	time.Sleep(500 * time.Millisecond) // logged in
	if err := s.Down(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-gone:
		if err == nil {
			t.Error("a connection Down dropped exited 0")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Down left the live connection up")
	}
	if err := ssh("devbox", "true").Run(); err == nil {
		t.Error("ssh connected while the link is down")
	}
	if err := s.Up(); err != nil {
		t.Fatal(err)
	}
	if out, err := ssh("devbox", "true").CombinedOutput(); err != nil {
		t.Errorf("ssh after Up: %v: %s", err, out)
	}
	s.Close()
	if out, _ := exec.Command("pgrep", "-u", "hookwire-remote", "-f", s.Dir).Output(); len(out) > 0 {
		t.Errorf("after Close, the remote session's processes still run: %s", out)
	}
}
