package pulse

import (
	"os/exec"
	"strings"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

// Request is one Pulse delivery: the noctalia command, and what it says,
// for a relay to carry to a desktop when noctalia is not on this machine.
// Its Describe, what a dry run prints, is the command.
type Request struct {
	transport.Command
	// Socket is noctalia's socket, when it was there as the request was
	// made: the command's line is written on it instead (socket.go).
	Socket         string
	Event, Payload string
}

// Absent: neither noctalia's socket nor noctalia on PATH here (an SSH dev
// box, a container).
func (r Request) Absent() bool {
	if r.Socket != "" {
		return false
	}
	_, err := exec.LookPath(r.Argv[0])
	return err != nil
}

// Crossing is the event and its payload token; the session is the
// token's sixth field (pulse-svc's slot). A session's start (idle) and end
// are kept by a full spool.
func (r Request) Crossing() transport.Crossing {
	session := ""
	if f := strings.Split(r.Payload, ","); len(f) >= 6 {
		session = f[5]
	}
	return transport.Crossing{Surface: remote.Pulse, Name: r.Event, Session: session,
		Keep: r.Event == "idle" || r.Event == "session_end", Event: r.Event, Payload: r.Payload}
}
