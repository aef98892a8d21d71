package testkit

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/windows"
)

// listenPipe listens on a named pipe as Coucou's Windows app does: each
// instance made by CreateNamedPipe (byte mode, duplex, local clients only,
// the default security: the creator, the system and administrators), the
// first with FILE_FLAG_FIRST_PIPE_INSTANCE, the next made as one connects.
//
// Not go-winio's ListenPipe: to keep clients off the pipe until Accept, it
// first makes an instance with no read or write access, which Windows keeps
// disconnected; Wine (10) lets a client connect to that instance, which no
// one ever reads, so a client's write waits for room that never comes
// (docs/reference/windows.md).
func listenPipe(name string) (net.Listener, error) {
	quit, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	h, err := pipeInstance(name, true)
	if err != nil {
		windows.CloseHandle(quit)
		return nil, &net.OpError{Op: "listen", Net: "pipe", Addr: pipeAddr(name), Err: err}
	}
	return &pipeListener{name: name, quit: quit, next: h}, nil
}

func pipeInstance(name string, first bool) (windows.Handle, error) {
	n, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	return windows.CreateNamedPipe(n, flags,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, 64<<10, 64<<10, 0, nil)
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

type pipeListener struct {
	name string
	quit windows.Handle // set by Close
	once sync.Once

	mu   sync.Mutex // serialises Accept
	next windows.Handle
}

// Accept waits for a client on the waiting instance, and makes the next.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.next == windows.InvalidHandle {
		return nil, net.ErrClosed
	}
	h := l.next
	_, err := overlapped(h, l.quit, func(ov *windows.Overlapped) error { return windows.ConnectNamedPipe(h, ov) })
	if errors.Is(err, windows.ERROR_PIPE_CONNECTED) {
		err = nil // the client came before ConnectNamedPipe
	}
	if err != nil {
		windows.CloseHandle(h)
		l.next = windows.InvalidHandle
		return nil, err
	}
	l.next, err = pipeInstance(l.name, false)
	if err != nil {
		l.next = windows.InvalidHandle
	}
	closed, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &pipeConn{h: h, name: l.name, closed: closed}, nil
}

// Close stops a waiting Accept, which closes the waiting instance.
func (l *pipeListener) Close() error {
	l.once.Do(func() { windows.SetEvent(l.quit) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// overlapped runs one overlapped operation on h and waits for it, or for
// stop: then it cancels it and answers net.ErrClosed.
func overlapped(h, stop windows.Handle, op func(*windows.Overlapped) error) (uint32, error) {
	if ev, _ := windows.WaitForSingleObject(stop, 0); ev == windows.WAIT_OBJECT_0 {
		return 0, net.ErrClosed
	}
	done, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(done)
	ov := &windows.Overlapped{HEvent: done}
	var n uint32
	if err := op(ov); err != nil && !errors.Is(err, windows.ERROR_IO_PENDING) {
		return 0, err
	}
	which, err := windows.WaitForMultipleObjects([]windows.Handle{done, stop}, false, windows.INFINITE)
	if err != nil {
		return 0, err
	}
	if which == windows.WAIT_OBJECT_0+1 {
		windows.CancelIoEx(h, ov)
		windows.GetOverlappedResult(h, ov, &n, true)
		return 0, net.ErrClosed
	}
	err = windows.GetOverlappedResult(h, ov, &n, true)
	return n, err
}

// pipeConn is the server's end of one connection. Deadlines are not
// supported: the fakes end a connection by closing it.
type pipeConn struct {
	h      windows.Handle
	name   string
	closed windows.Handle // set by Close: stops a Read or Write under way
	once   sync.Once
	io     sync.RWMutex // Read and Write hold it shared, Close alone
}

func (c *pipeConn) Read(b []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	if len(b) == 0 {
		return 0, nil
	}
	n, err := overlapped(c.h, c.closed, func(ov *windows.Overlapped) error { return windows.ReadFile(c.h, b, nil, ov) })
	if errors.Is(err, windows.ERROR_BROKEN_PIPE) || errors.Is(err, windows.ERROR_PIPE_NOT_CONNECTED) {
		return int(n), io.EOF
	}
	return int(n), err
}

func (c *pipeConn) Write(b []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	total := 0
	for total < len(b) {
		n, err := overlapped(c.h, c.closed, func(ov *windows.Overlapped) error { return windows.WriteFile(c.h, b[total:], nil, ov) })
		total += int(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Close stops what is under way, then closes the instance, as an app's
// dropped handle does: what it wrote stays for the client to read, then the
// client reads EOF (DisconnectNamedPipe would throw the reply away).
func (c *pipeConn) Close() error {
	c.once.Do(func() {
		windows.SetEvent(c.closed)
		c.io.Lock()
		windows.CloseHandle(c.h)
		windows.CloseHandle(c.closed)
		c.io.Unlock()
	})
	return nil
}

var errNoDeadlines = errors.New("the test pipe has no deadlines")

func (c *pipeConn) LocalAddr() net.Addr              { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr             { return pipeAddr(c.name) }
func (c *pipeConn) SetDeadline(time.Time) error      { return errNoDeadlines }
func (c *pipeConn) SetReadDeadline(time.Time) error  { return errNoDeadlines }
func (c *pipeConn) SetWriteDeadline(time.Time) error { return errNoDeadlines }

// coucouPipe is the pipe Coucou's Windows app listens on, named after the
// user's SID: found here on its own, not by the code under test.
func coucouPipe() (string, error) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return `\\.\pipe\coucou-` + user.User.Sid.String(), nil
}
