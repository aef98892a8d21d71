//go:build linux

package hook

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hookwire/hookwire/internal/remote"
)

// On a full disk (a small tmpfs, filled: needs root, else skipped) a hook
// hands its delivery to a listening relay's socket, live, and its log says
// so; with no relay listening the delivery is lost, and the log says why.
func TestSendHandsLiveOnFullDisk(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", 256<<10)); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dir := filepath.Join(mnt, "relay")
	if err := remote.Create(dir); err != nil {
		t.Fatal(err)
	}
	withRelay(t, dir)
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for chunk := make([]byte, 4096); ; {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	filler.Close()

	n := 0
	inv := testInvocation(nil)
	inv.Send(crossing{absent: true, done: &n})
	if got := inv.rec.Sent[0]; got.Reply != "" || !strings.Contains(got.Error, "no space left on device") {
		t.Errorf("no relay listening: logged %+v, want the delivery lost for a full disk", got)
	}

	ln, err := net.Listen("unix", remote.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		l, _ := bufio.NewReader(c).ReadString('\n')
		got <- l
		c.Write([]byte("live\n"))
	}()
	inv.Send(crossing{absent: true, done: &n})
	if rec := inv.rec.Sent[1]; rec.Reply != "handed live: the spool's disk is full" || rec.Error != "" {
		t.Errorf("a relay listening: logged %+v", rec)
	}
	if l := <-got; !strings.Contains(l, `"surface":"coucou"`) {
		t.Errorf("the relay got %q", l)
	}
	if n != 0 {
		t.Errorf("done here %d times", n)
	}
	if segs, _ := os.ReadDir(filepath.Join(dir, "spool")); len(segs) > 0 {
		if fi, _ := segs[0].Info(); fi.Size() > 0 {
			t.Errorf("the spool holds %d bytes: a torn line", fi.Size())
		}
	}
}
