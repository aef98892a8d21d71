package pulse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/hookwire/hookwire/internal/transport"
)

// noctalia's own socket. `noctalia msg plugin …` starts the whole shell's
// binary (a C++ program linked to some thirty libraries) only to join its
// arguments with spaces, write them as one line on this socket and print the
// answer. When the socket is there, a delivery writes that line itself, and
// no process starts for it; without it, `noctalia msg` runs as before (a
// noctalia that is not running answers so, and a wrapper of the user's on
// PATH keeps working).
//
// The path and the wire are noctalia's (src/ipc/ipc_client.cpp and
// ipc_service.cpp): $XDG_RUNTIME_DIR (else /tmp), then
// noctalia-$WAYLAND_DISPLAY (else wayland-0).sock; one line of at most 511
// bytes, read by the shell's main loop within 100 ms, answered with one line
// (`ok: dispatched N`, or `error: …`), then the connection is closed. A
// fork's client puts its directory and \x1e before the line, which its
// server takes as optional and the upstream server does not know: the line
// goes without it (a plugin's dispatch does not use it).

// Socket is the path of noctalia's IPC socket in the environment getenv
// reads, as noctalia works it out.
func Socket(getenv func(string) string) string {
	dir, display := getenv("XDG_RUNTIME_DIR"), getenv("WAYLAND_DISPLAY")
	if dir == "" {
		dir = "/tmp"
	}
	if display == "" {
		display = "wayland-0"
	}
	return dir + "/noctalia-" + display + ".sock"
}

// socketThere reports a socket at path: noctalia running, or one it left
// (which refuses the connection, as it refuses `noctalia msg`). A link to
// one counts, as connecting follows it; whoever listens is checked before
// a byte is written (transport.DialLocal).
func socketThere(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Type() == os.ModeSocket
}

// line is what `noctalia msg` writes for the request's argv: its arguments
// after "msg", joined with spaces.
func (r Request) line() transport.SocketLine {
	return transport.SocketLine{Path: r.Socket, Line: []byte(strings.Join(r.Argv[2:], " ")), ReadReply: true}
}

// Do writes the line on noctalia's socket when it is there (its server
// checked to be ours), else runs `noctalia msg`. An answer that is an
// error is one, as it is `noctalia msg`'s exit status 1.
func (r Request) Do(ctx context.Context) (transport.Reply, error) {
	if r.Socket == "" {
		return r.Command.Do(ctx)
	}
	reply, err := r.line().Do(ctx)
	if err == nil && bytes.HasPrefix(reply.Body, []byte("error:")) {
		reply.Status = 1
		err = fmt.Errorf("noctalia answered %s", reply.Body)
	}
	return reply, err
}

// Summary is the debug log's account of where the delivery goes: the
// socket and the line's size, or the command.
func (r Request) Summary() string {
	if r.Socket != "" {
		return r.line().Summary()
	}
	return r.Command.Summary()
}

// Ask is noctalia's answer to a command a person's tool sends (doctor's and
// setup's "plugins list"), whole: on its socket when it is there, else from
// `noctalia msg`. via says which: the socket's path, or the command's.
func Ask(ctx context.Context, getenv func(string) string, command ...string) (answer, via string, err error) {
	r := Request{Command: transport.Command{Argv: append([]string{"noctalia", "msg"}, command...)}, Socket: Socket(getenv)}
	if !socketThere(r.Socket) {
		path, lerr := exec.LookPath("noctalia")
		if lerr != nil {
			return "", "", lerr
		}
		reply, err := r.Command.Do(ctx)
		return string(reply.Body), path, err
	}
	conn, err := transport.DialLocal(ctx, r.Socket, transport.DefaultConnect)
	if err != nil {
		return "", r.Socket, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if _, err := conn.Write(append(r.line().Line, '\n')); err != nil {
		return "", r.Socket, err
	}
	b, err := io.ReadAll(io.LimitReader(conn, 64<<10)) // noctalia closes after its answer
	if err == nil && bytes.HasPrefix(b, []byte("error:")) {
		err = fmt.Errorf("%s", bytes.TrimSpace(b))
	}
	return string(b), r.Socket, err
}
