package coucou

import (
	"errors"
	"io/fs"
	"os"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

// crossing is a line for the app's socket that a relay carries to the
// desktop when the app is not on this machine (its socket does not exist):
// the JSON object as the app would get it; an approval or a question waits
// for the desktop's answer (ask).
func crossing(send transport.SocketLine, event, session string, ask bool) forward {
	return forward{SocketLine: send, event: event, session: session, ask: ask}
}

type forward struct {
	transport.SocketLine
	event, session string
	ask            bool
}

// Absent: no socket at the path (the app runs on another machine).
func (f forward) Absent() bool {
	_, err := os.Stat(f.Path)
	return errors.Is(err, fs.ErrNotExist)
}

func (f forward) Crossing() transport.Crossing {
	return transport.Crossing{Surface: remote.Coucou, Name: f.event, Session: f.session,
		Keep: f.event == "SessionStart" || f.event == "SessionEnd", Body: f.Line, Ask: f.ask}
}
