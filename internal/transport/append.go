package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/hookwire/hookwire/internal/safefile"
)

// Append adds bytes to the end of an existing file with a single write on a
// descriptor opened append-only, as Coral's PULSE lines reach a session's
// terminal log. It never creates the file: a log that is not there means
// nobody is reading, and nothing must be left behind.
//
// One write(2) on an O_APPEND descriptor lands in one piece at the end of a
// local file, between the writes of another appender (tmux's `cat >>`), so
// the data arrives whole. It opens without following a symbolic link and
// without blocking, and refuses anything but a regular file owned by this
// user: the path may be predictable, in a directory others can write (/tmp),
// and a link or a FIFO planted there must not turn the hook into a way to
// write into another file or to hang.
type Append struct {
	Path string
	Data []byte
}

// ErrNotRegular is returned for a path that is not a plain file we own.
var ErrNotRegular = safefile.ErrUnsafe

// Describe is the path, then the bytes exactly, as a Go string literal:
// they may hold carriage returns that a terminal would hide.
func (a Append) Describe() string {
	return "append " + a.Path + "\n" + strconv.Quote(string(a.Data))
}

// Summary names the file and the size of the write, never its text.
func (a Append) Summary() string {
	return fmt.Sprintf("append %s (%d bytes)", a.Path, len(a.Data))
}

// Do opens the file, checks it and writes once. A write to a regular file
// does not block, so the deadline is only checked before starting.
func (a Append) Do(ctx context.Context) (Reply, error) {
	if Queued(ctx, a) {
		return Reply{}, ErrHandedOver
	}
	if err := Uninterrupted(ctx).Err(); err != nil {
		return Reply{}, fmt.Errorf("append %s: %w", a.Path, ErrDeadline)
	}
	f, err := safefile.OpenAppend(a.Path)
	if err != nil {
		return Reply{}, err
	}
	defer f.Close()
	n, err := f.Write(a.Data)
	if err != nil {
		return Reply{}, err
	}
	if n != len(a.Data) {
		return Reply{}, fmt.Errorf("append %s: wrote %d of %d bytes", a.Path, n, len(a.Data))
	}
	return Reply{}, nil
}

// Kind names Append for the courier (late.go).
func (a Append) Kind() string { return "append" }

// Resume: an append has no connection to go on from.
func (a Append) Resume(context.Context, net.Conn, []byte) (Reply, error) {
	return Reply{}, errors.New("an append is not resumed")
}
