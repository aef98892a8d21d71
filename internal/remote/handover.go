package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
)

// What a hook on the agent's machine does with a delivery whose surface is
// not there, while a relay is set up: Hand it over (the spool, then a poke),
// or for an approval, Ask the relay and wait for the desktop's answer.

// pokeWithin bounds the poke's connect: a listening relay accepts in
// microseconds; one whose backlog is full (many hooks at once) is retried
// that long; a wedged one is not waited for (the spool has the line, and
// the next poke streams it).
const pokeWithin = 100 * time.Millisecond

// ErrNoDesktop: no relay listens, so no desktop is connected to answer.
var ErrNoDesktop = errors.New("no desktop connected (no relay listening)")

// Hand spools one delivery line (Delivery's JSON, without Seq) in dir and
// pokes the relay, if one listens. It returns the line's Seq, and whether a
// relay was poked (for the log: the desktop has it now, or on reconnect).
// When the spool's disk is full, a relay that listens (a desktop is
// connected) takes the line live instead: Seq 0 and poked, and the desktop
// has it now; without one the delivery is lost, and the error says why.
func Hand(ctx context.Context, dir string, line []byte) (seq uint64, poked bool, err error) {
	seq, err = Append(ctx, dir, line)
	if NoSpace(err) {
		if lerr := handLive(ctx, dir, line); lerr == nil {
			return 0, true, nil
		} else if !errors.Is(lerr, ErrNoDesktop) {
			err = errors.Join(err, lerr)
		}
	}
	if err != nil {
		return 0, false, err
	}
	return seq, Poke(dir) == nil, nil
}

// liveWithin bounds a live hand-over: the relay writes the line to the
// desktop and says so; one that cannot at once (a desktop not reading) is
// not waited for longer than a spool's lock would be.
const liveWithin = LockWithin

// handLive gives a delivery the spool could not take to the relay's
// socket, for the desktop at once.
func handLive(ctx context.Context, dir string, line []byte) error {
	ctx, cancel := context.WithTimeout(ctx, liveWithin)
	defer cancel()
	reply, err := transport.SocketLine{Path: SocketPath(dir), Line: line, ReadReply: true,
		ConnectWithin: pokeWithin, MaxReply: 64}.Do(ctx)
	if err != nil {
		return noRelay(err)
	}
	if strings.TrimSpace(string(reply.Body)) != liveReply {
		return errors.New("the relay did not take it (an older hookwire relay?)")
	}
	return nil
}

// Poke tells a relay listening in dir that the spool grew: a connection
// that says nothing. No relay (no socket, or nobody listening) is no error
// worth more than a word: the line waits in the spool.
func Poke(dir string) error {
	conn, err := transport.DialUnix(context.Background(), SocketPath(dir), pokeWithin)
	if err != nil {
		return noRelay(err)
	}
	return conn.Close()
}

// Ask hands an approval to the relay in dir: line is a Delivery with Ask
// set and WithinMS the hook's remaining budget. It waits, until ctx ends,
// for the reply line: the surface's answer on the desktop, empty when none
// came. The relay's server must be this user (transport.DialLocal checks).
func Ask(ctx context.Context, dir string, line []byte) ([]byte, error) {
	if len(line) > MaxLine {
		return nil, fmt.Errorf("%d bytes: %w", len(line), ErrTooLong)
	}
	reply, err := transport.SocketLine{Path: SocketPath(dir), Line: line, ReadReply: true,
		ConnectWithin: transport.DefaultConnect, MaxReply: maxReply}.Do(ctx)
	if err != nil {
		return nil, noRelay(err)
	}
	return reply.Body, nil
}

// maxReply bounds an answer relayed back to a hook (Coucou's own bound).
const maxReply = 64 << 10

// noRelay rewrites "no socket" and "nobody listening" into ErrNoDesktop.
func noRelay(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
		return ErrNoDesktop
	}
	return err
}
