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
	// SameUser refuses a peer that runs as another user.
	SameUser bool
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
	conn, err := dialLocal(ctx, s.Path, OrDefault(s.ConnectWithin, DefaultConnect))
	if err != nil {
		return Reply{}, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if s.SameUser {
		if err := samePeer(conn); err != nil {
			return Reply{}, err
		}
	}
	msg := make([]byte, 0, len(s.Line)+1)
	msg = append(append(msg, s.Line...), '\n')
	if _, err := conn.Write(msg); err != nil {
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
		return Reply{Body: line}, fmt.Errorf("read reply from %s: %w", s.Path, DeadlineErr(ctx, err))
	}
	return Reply{Body: line}, nil
}

// Reachable connects to a local socket or pipe, checks that its server runs
// as us, and hangs up without a word: doctor's test that a target listens.
func Reachable(ctx context.Context, path string) error {
	conn, err := dialLocal(ctx, path, DefaultConnect)
	if err != nil {
		return err
	}
	defer conn.Close()
	return samePeer(conn)
}

// readLine reads up to the first newline, EOF, or max bytes. EOF after some
// bytes is a reply without its newline; EOF before any is "no reply", which
// is not an error (the server chose to say nothing).
func readLine(r io.Reader, max int) ([]byte, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, int64(max)), min(max, 4096))
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		var rest []byte
		rest, err = io.ReadAll(br)
		line = append(append([]byte(nil), line...), rest...)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
	}
	line = bytes.TrimRight(line, "\r\n")
	if err == io.EOF {
		err = nil
	}
	return append([]byte(nil), line...), err
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
