package vpet

import (
	"errors"
	"io/fs"
	"os"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

// onDesktop reports that the pet runs on another machine: no socket here,
// while a relay is set up. The envelopes are then made as usual and handed
// to the relay without a token (the desktop adds its own), and no token
// file is created here.
func onDesktop(inv *hook.Invocation, socket string) bool {
	if !inv.RelaySetUp() {
		return false
	}
	_, err := os.Stat(socket)
	return errors.Is(err, fs.ErrNotExist)
}

// crossing is a request to the sink that a relay carries to the desktop
// (away: the pet is not on this machine): the envelope, which holds no token.
func crossing(r transport.Request, e Envelope, ev agent.Event, away bool) transport.Request {
	if !away {
		return r
	}
	return forward{Request: r, event: e.Event, session: e.SessionKey,
		keep: ev.Kind == agent.SessionStart || ev.Kind == agent.SessionEnd}
}

type forward struct {
	transport.Request
	event, session string
	keep           bool
}

// Absent: known when it was made (onDesktop).
func (forward) Absent() bool { return true }

func (f forward) Crossing() transport.Crossing {
	return transport.Crossing{Surface: remote.VPet, Name: f.event, Session: f.session, Keep: f.keep, Body: f.body()}
}

// body is the envelope the request carries.
func (f forward) body() []byte {
	if b, ok := f.Request.(budgeted); ok {
		return b.Body
	}
	return nil
}
