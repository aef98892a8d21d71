// Package afunix says whether this system has Unix sockets, for tests that
// listen on one: every Unix and Windows 10 (build 17063) and later do; Wine
// does not (its winsock answers WSAEAFNOSUPPORT, error 10047), so under
// scripts/wintest such a test skips, naming why, while on a real Windows it
// runs. The Windows counterpart, Coucou's named pipe, has tests of its own.
package afunix

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Missing names the limitation a test skips for.
const Missing = "this system has no AF_UNIX sockets (Wine has none: winsock error 10047; Windows 10 and later do)"

var probe = sync.OnceValue(func() error {
	dir, err := os.MkdirTemp("", "hookwire-afunix")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "probe.sock"))
	if err != nil {
		return err
	}
	return ln.Close()
})

// Err is nil where a Unix socket can be listened on (probed once), else
// why not.
func Err() error { return probe() }

// Need skips t where there are no Unix sockets, saying so.
func Need(t testing.TB) {
	t.Helper()
	if err := Err(); err != nil {
		t.Skipf("%s: %v", Missing, err)
	}
}
