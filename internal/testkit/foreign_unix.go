//go:build unix

package testkit

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ForeignListener starts a TCP listener on a free port of 127.0.0.1 in a
// process of another user (uid, which needs no account), as a local
// attacker who got to a daemon's port first. It returns the address and
// what the listener received so far. It needs root; the test binary must
// call ForeignListenerMain when its argv[0] is "foreign-listener".
//
// The child is the test binary itself, linked into a fresh directory that
// the other user can reach (the test binary's own is private).
func ForeignListener(t testing.TB, uid int) (addr string, received func() []byte) {
	t.Helper()
	return foreignListener(t, uid, "")
}

// ForeignUnixListener is ForeignListener on a Unix socket at path, whose
// directory the other user must be able to write: another user's socket
// where a binary of ours looks for its own.
func ForeignUnixListener(t testing.TB, uid int, path string) (received func() []byte) {
	t.Helper()
	_, received = foreignListener(t, uid, path)
	return received
}

func foreignListener(t testing.TB, uid int, unixPath string) (addr string, received func() []byte) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a listener as another uid")
	}
	dir, err := os.MkdirTemp("", "hookwire-foreign-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "foreign-listener")
	if err := InstallAs(exe); err != nil {
		t.Fatal(err)
	}
	os.Chmod(exe, 0o755)
	cmd := exec.Command(exe)
	if unixPath != "" {
		cmd.Env = append(os.Environ(), "FOREIGN_UNIX="+unixPath)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	first, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("the foreign listener did not start: %v", err)
	}
	var mu sync.Mutex
	var got bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return strings.TrimSpace(first), func() []byte {
		time.Sleep(50 * time.Millisecond) // what is in the pipe arrives
		mu.Lock()
		defer mu.Unlock()
		return bytes.Clone(got.Bytes())
	}
}

// ForeignListenerMain is the listener's process: it prints its address,
// then copies to stdout what each connection sends first, and answers each
// with an empty 200.
func ForeignListenerMain() {
	network, address := "tcp4", "127.0.0.1:0"
	if p := os.Getenv("FOREIGN_UNIX"); p != "" {
		network, address = "unix", p
	}
	ln, err := net.Listen(network, address)
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	var mu sync.Mutex
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(0)
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Second))
			b := make([]byte, 64<<10)
			n, _ := c.Read(b) // a hook's request comes in one write
			mu.Lock()
			os.Stdout.Write(b[:n])
			mu.Unlock()
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
		}()
	}
}
