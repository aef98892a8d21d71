package transport

import (
	"errors"
	"fmt"
	"net"

	"github.com/hookwire/hookwire/internal/safefile"
)

// ErrForeignListener refuses a TCP port on this machine that another user
// listens on. Anyone can listen on a free port of 127.0.0.1: another user who
// starts before the daemon (Trail Boss on 4000, Coral's API) would receive
// every event, with the cwd and the agent's answers, and the hook would
// never know. The Unix-socket surfaces check their server's user (PeerUID);
// this is the same check for TCP.
var ErrForeignListener = errors.New("served by another user")

// CheckListener refuses conn, a TCP connection to a loopback address, when
// the socket listening at its remote address belongs to another user than
// this process's (its effective uid) or root (who can read the user's files
// anyway, and whose listener is what a container's published port is).
// Where it cannot be known (not Linux, /proc unreadable), it says nothing:
// macOS offers no cheap way to tell, and the check is documented as Linux
// only.
func CheckListener(conn net.Conn) error {
	addr, ok := conn.RemoteAddr().(*net.TCPAddr)
	local, _ := conn.LocalAddr().(*net.TCPAddr)
	if !ok || local == nil || !addr.IP.IsLoopback() {
		return nil
	}
	uid, ok := serverUID(local, addr)
	if ok && uid != ownUID && uid != 0 {
		return fmt.Errorf("%s is %w (%s), not by you: nothing was sent", addr, ErrForeignListener, safefile.UserName(uid))
	}
	return nil
}
