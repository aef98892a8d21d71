package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// SocketLine writes one newline-terminated message on a fresh connection to a
// Unix socket (on Windows, a named pipe \\.\pipe\…) and optionally reads
// one reply line.
type SocketLine struct {
	Path string
	// Line is the message without its newline.
	Line []byte
	// ReadReply waits for one reply line (or EOF) after writing.
	ReadReply bool
	// ReplyWithin bounds the wait for the reply; zero means up to the deadline.
	ReplyWithin time.Duration
	// ReplyOptional makes a reply that does not come within ReplyWithin no
	// error: some servers acknowledge, some just close, some do neither.
	ReplyOptional bool
	// ConnectWithin bounds connecting; zero means DefaultConnect.
	ConnectWithin time.Duration
	// MaxReply bounds the reply; zero means 64 KiB.
	MaxReply int
}

// DefaultConnect is the connect budget of a local socket: a listening server
// answers in microseconds, so anything slower is a wedged or absent one.
const DefaultConnect = 300 * time.Millisecond

// Describe is the socket path, then the line.
func (s SocketLine) Describe() string {
	return "socket " + s.Path + "\n" + string(s.Line)
}

// Summary names the socket and the size of the line.
func (s SocketLine) Summary() string {
	return fmt.Sprintf("socket %s (%d bytes)", s.Path, len(s.Line)+1)
}

// Do connects, writes and reads the reply.
func (s SocketLine) Do(ctx context.Context) (Reply, error) {
	if Queued(ctx, s) {
		return Reply{}, ErrHandedOver
	}
	conn, err := DialLocal(ctx, s.Path, OrDefault(s.ConnectWithin, DefaultConnect))
	if err != nil {
		if HandedOver(ctx, s, nil, nil) {
			return Reply{}, ErrHandedOver
		}
		return Reply{}, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	msg := make([]byte, 0, len(s.Line)+1)
	return s.Resume(ctx, conn, append(append(msg, s.Line...), '\n'))
}

// Kind names SocketLine for the courier (late.go).
func (s SocketLine) Kind() string { return "socket" }

// Resume writes rest (the line, or what is left of it) on conn and reads
// the reply: Do's steps once connected, and the courier's (late.go).
func (s SocketLine) Resume(ctx context.Context, conn net.Conn, rest []byte) (Reply, error) {
	if n, err := WriteRest(conn, rest); err != nil {
		if HandedOver(ctx, s, conn, rest[n:]) {
			return Reply{}, ErrHandedOver
		}
		return Reply{}, fmt.Errorf("write %s: %w", s.Path, DeadlineErr(ctx, err))
	}
	if !s.ReadReply {
		return Reply{}, nil
	}
	if s.ReplyWithin > 0 {
		dl := time.Now().Add(s.ReplyWithin)
		if cdl, ok := ctx.Deadline(); !ok || dl.Before(cdl) {
			conn.SetReadDeadline(dl)
		}
	}
	line, err := readLine(conn, OrDefault(s.MaxReply, 64<<10))
	if err != nil && s.ReplyOptional && errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil {
		return Reply{Body: line}, nil
	}
	if err != nil {
		if len(line) == 0 && HandedOver(ctx, s, conn, nil) {
			return Reply{}, ErrHandedOver
		}
		return Reply{Body: line}, fmt.Errorf("read reply from %s: %w", s.Path, DeadlineErr(ctx, err))
	}
	return Reply{Body: line}, nil
}

// WriteRest writes what is left of a request; nothing left is no write (a
// surface that answered and closed while its request was handed over must
// not turn its answer into a broken pipe).
func WriteRest(conn net.Conn, rest []byte) (int, error) {
	if len(rest) == 0 {
		return 0, nil
	}
	return conn.Write(rest)
}

// Reachable connects to a local socket or pipe, checks that its server runs
// as us, and hangs up without a word: doctor's test that a target listens.
func Reachable(ctx context.Context, path string) error {
	conn, err := DialLocal(ctx, path, DefaultConnect)
	if err != nil {
		return err
	}
	return conn.Close()
}

// DialLocal connects to a Unix socket (on Windows, also a named pipe) within
// budget and refuses a server that runs as another user before a byte is
// written: what we send (a token, a prompt) is for our own user's app, and a
// socket path or pipe name can be taken by anyone who gets there first. The
// peer is checked with SO_PEERCRED (Linux), LOCAL_PEERCRED (macOS) or the
// pipe server's SID (Windows). Every local socket goes through here.
func DialLocal(ctx context.Context, path string, budget time.Duration) (net.Conn, error) {
	conn, err := dialLocal(ctx, path, budget)
	if err != nil {
		return nil, err
	}
	if err := samePeer(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return conn, nil
}

// readLine reads up to the first newline, EOF, or max bytes, whichever comes
// first: a server that keeps the connection open after its line is not
// waited on, however long the line. EOF after some bytes is a reply without
// its newline; EOF before any is "no reply", which is not an error (the
// server chose to say nothing).
func readLine(r io.Reader, max int) ([]byte, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, int64(max)), min(max, 4096))
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if err == bufio.ErrBufferFull {
			continue // a long line: keep reading to its newline (or max)
		}
		line = bytes.TrimRight(line, "\r\n")
		if err == io.EOF {
			err = nil
		}
		return line, err
	}
}

// DialUnix connects within budget. A listener whose backlog is full answers
// EAGAIN at once rather than blocking; that is retried every 15 ms until the
// budget is spent, as the Coucou relay does.
func DialUnix(ctx context.Context, path string, budget time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "unix", path)
		if err == nil {
			return conn, nil
		}
		if !errors.Is(err, syscall.EAGAIN) {
			return nil, DeadlineErr(ctx, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect %s: backlog full: %w", path, ErrDeadline)
		case <-time.After(15 * time.Millisecond):
		}
	}
}

// ErrOtherUser is returned when the socket's server runs as someone else.
var ErrOtherUser = errors.New("the server runs as another user")

// checkUID refuses a server that is not us. PeerUID is a seam for tests,
// which cannot make a socket owned by another user without privileges.
func checkUID(conn net.Conn) error {
	uid, err := PeerUID(conn)
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if uid >= 0 && uid != os.Getuid() {
		return fmt.Errorf("%w (uid %d)", ErrOtherUser, uid)
	}
	return nil
}

// OrDefault returns v, or def when v is the zero value.
func OrDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
