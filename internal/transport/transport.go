// Package transport delivers one message to a local target under a deadline:
// run a command, or write a line to a Unix socket. HTTP requests, over TCP
// loopback or a Unix socket, are in the httpsend subpackage.
//
// Every request is a value that can describe itself, so that the runtime can
// print it instead of sending it (dry-run) and record it in the debug log
// without its secrets. Do honours the context's deadline in every step
// (connect, write, read, a child that never exits), follows no redirect, and
// leaves no goroutine or child process behind.
package transport

import (
	"context"
	"errors"
	"os"
	"time"
)

// Request is one delivery.
type Request interface {
	// Describe returns exactly what would be sent, for a dry run: argv, socket
	// path and line, method, URL, headers and body. Secrets read <redacted>.
	Describe() string
	// Summary is the debug log's one-line account: where it goes and how big
	// it is, never a secret and never the text of a prompt or tool output.
	Summary() string
	// Do delivers the request.
	Do(ctx context.Context) (Reply, error)
}

// Reply is what the target answered.
type Reply struct {
	// Status is the HTTP status, or a command's exit code.
	Status int
	// Body is the reply line, response body or command output, bounded.
	Body []byte
}

// ErrDeadline is wrapped by errors that come from the deadline expiring, so
// the log can say "the target hung" rather than echoing a syscall error.
var ErrDeadline = errors.New("deadline reached")

// DeadlineErr rewrites an error caused by the deadline into ErrDeadline. A
// socket deadline set from the context can fire a moment before the
// context's own timer, hence the second test.
func DeadlineErr(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return ErrDeadline
	}
	return err
}

// capWriter keeps the first n bytes written to it and discards the rest.
type capWriter struct {
	b []byte
	n int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.n - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Within is r with a budget of its own, d from when it starts, inside the
// deadline it is given. It is only a Request: a request that could cross
// to a relay (Crosser) does not, wrapped.
func Within(r Request, d time.Duration) Request { return budgeted{r, d} }

type budgeted struct {
	Request
	d time.Duration
}

func (w budgeted) Do(ctx context.Context) (Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, w.d)
	defer cancel()
	return w.Request.Do(ctx)
}
