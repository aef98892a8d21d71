package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// dialLocal connects to a named pipe (\\.\pipe\name) or, on Windows 10 and
// later, a Unix socket.
func dialLocal(ctx context.Context, path string, budget time.Duration) (net.Conn, error) {
	if !strings.HasPrefix(path, `\\.\pipe\`) {
		return DialUnix(ctx, path, budget)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	// DialPipeContext retries while the pipe is busy, until ctx ends.
	conn, err := winio.DialPipeContext(ctx, path)
	if err != nil {
		return nil, DeadlineErr(ctx, err)
	}
	return conn, nil
}

// samePeer refuses a pipe whose server process runs as another user: a
// pipe name can be squatted by anyone who creates it first.
func samePeer(conn net.Conn) error {
	f, ok := conn.(interface{ Fd() uintptr })
	if !ok {
		return checkUID(conn)
	}
	var pid uint32
	if err := windows.GetNamedPipeServerProcessId(windows.Handle(f.Fd()), &pid); err != nil {
		return fmt.Errorf("pipe server: %w", err)
	}
	theirs, err := processSID(pid)
	if err != nil {
		return fmt.Errorf("pipe server: %w", err)
	}
	ours, err := processSID(windows.GetCurrentProcessId())
	if err != nil {
		return err
	}
	if !theirs.Equals(ours) {
		return fmt.Errorf("%w (%s)", ErrOtherUser, theirs)
	}
	return nil
}

func processSID(pid uint32) (*windows.SID, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	var token windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &token); err != nil {
		return nil, err
	}
	defer token.Close()
	user, err := token.GetTokenUser()
	if err != nil {
		return nil, err
	}
	if user.User.Sid == nil {
		return nil, errors.New("no user SID")
	}
	return user.User.Sid.Copy()
}
