package transport

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A surface whose listen queue is full (it stopped accepting): the hook's
// connect waits, the hand-over takes the request whole (nothing reached the
// surface), and the courier delivers it once the surface accepts again.
func TestHandOverFullBacklog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "full.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // room for one pending connection
		t.Fatal(err)
	}
	ln, err := net.FileListener(os.NewFile(uintptr(fd), "full"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var fillers []net.Conn
	defer func() {
		for _, c := range fillers {
			c.Close()
		}
	}()
	for range 4 { // fill the queue: a later connect gets EAGAIN
		c, err := net.DialTimeout("unix", path, 100*time.Millisecond)
		if err != nil {
			break
		}
		fillers = append(fillers, c)
	}
	late := &Late{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rctx, end := late.Begin(ctx)
	done := make(chan error)
	req := SocketLine{Path: path, Line: []byte("late"), ConnectWithin: 2 * time.Second}
	go func() {
		_, err := req.Do(rctx)
		end()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // connecting, the queue full
	late.HandOver()
	if err := <-done; !errors.Is(err, ErrHandedOver) {
		t.Fatalf("Do: %v, want ErrHandedOver", err)
	}
	items, files, err := Encode(late.Held(), nil)
	if err != nil || len(items) != 1 || items[0].Conn != -1 || len(files) != 0 {
		t.Fatalf("held %+v, %v: want the request whole", items, err)
	}
	// The surface accepts again: the fillers first, then the courier's.
	got := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
					got <- line
				}
			}()
		}
	}()
	for _, c := range fillers {
		c.Close()
	}
	fillers = nil
	if _, _, err := Carry(ctx, items[0], nil); err != nil {
		t.Fatalf("the courier: %v", err)
	}
	if l := <-got; l != "late\n" {
		t.Errorf("the surface got %q", l)
	}
	select {
	case l := <-got:
		t.Errorf("a second line: %q", l)
	case <-time.After(100 * time.Millisecond):
	}
}
