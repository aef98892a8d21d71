// Package warm is the warm path of hookwire: a hookwire process started and
// initialised ahead of the event (the worker, internal/combined's
// warm_linux.go), and the client an agent runs instead of hookwire, which
// hands the worker its event: its arguments, environment, directory and
// parent, and its stdin, stdout and stderr themselves. The worker runs the
// hook exactly as hookwire would, and sends back the exit status; when no
// surface can decide the event, it lets the client go before it delivers
// (internal/hook's first.go), and serves the next event after.
//
// What the agent waits for per event is then the client's start (the
// client imports nothing but syscall: this package's test says so), the
// hand-over, and the hook's start up to that point, where hookwire's own
// runtime and package initialisation are not. docs/performance.md says
// what it saves. Setup writes the client in the hooks unless told not to
// (--no-warm); install, when asked (--warm).
//
// Nothing is lost when no worker is there: no socket, a peer of another
// user, a worker of another hookwire (an upgrade) or one that refuses, and
// the client runs hookwire itself with the same arguments, asking it to
// start a worker for the next event (EnvStart). Once the worker has said it
// took the event (Accepted), the client waits for its status; a worker that
// dies after that is a hook that died: exit 0, as hook mode always does.
package warm

// The wire, on a Unix stream socket. The client sends its request: a 4-byte
// little-endian length, then NUL-terminated fields: Magic, the path of the
// hookwire the client would run, the client's working directory, its
// parent's pid, the number of arguments, the arguments (argv[0] aside), and
// the environment. The worker answers Accepted or Refused; after Accepted
// the client sends Go, which carries its stdin, stdout and stderr
// (SCM_RIGHTS), and the worker at last one byte: the hook's exit status.
const (
	Magic    = "hookwire-warm/1"
	Accepted = 'A'
	Refused  = 'R'
	// MaxRequest bounds a request: an environment and arguments larger
	// than this are not handed over (the client runs hookwire itself).
	MaxRequest = 4 << 20
)

// Go, the client's answer to the worker's Accepted, carries its stdin,
// stdout and stderr: from here on the client waits for the status, and the
// worker runs the hook. Until the worker reads it, either side may still
// give up and nothing has run twice. The descriptors go only now, to a
// worker that answered: in the queue of one that never reads (stopped,
// wedged) they would keep the agent's pipes open, and the agent waiting
// for the end of the hook's output.
const Go = 'G'

// Store is the worker's corner of hookwire's state directory (internal/state's
// Root: $XDG_RUNTIME_DIR/hookwire, else hookwire-<uid> in the temp
// directory), and SocketName its socket there.
const (
	Store      = "warm"
	SocketName = "sock"
)

// EnvStart, set by the client when it runs hookwire itself, to why no
// worker took the event, asks hookwire to say so in its log line and to
// start a worker once the hook is done.
const EnvStart = "HOOKWIRE_WARM_START"

// ClientName is the client's binary, installed beside hookwire.
const ClientName = "hookwire-client"

// Request is a decoded request: what the worker puts in place of its own.
type Request struct {
	Hookwire string
	Dir      string
	PPID     int
	Args     []string
	Env      []string
}

// Encode appends a request's bytes to dst: args and env are NUL-terminated
// fields each (as /proc/self/cmdline and /proc/self/environ are), nargs of
// them in args.
func Encode(dst []byte, hookwire, dir string, ppid int, nargs int, args, env []byte) []byte {
	start := len(dst)
	b := append(dst, 0, 0, 0, 0)
	b = append(append(b, Magic...), 0)
	b = append(append(b, hookwire...), 0)
	b = append(append(b, dir...), 0)
	b = append(appendInt(b, ppid), 0)
	b = append(appendInt(b, nargs), 0)
	b = append(append(b, args...), env...)
	n := len(b) - start - 4
	b[start], b[start+1], b[start+2], b[start+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	return b
}

// Length reads a request's length from its first four bytes.
func Length(b []byte) int {
	return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 | int(b[3])<<24
}

// Decode reads a request's body (what follows its length). ok is false for
// anything that is not one, of this version.
func Decode(body []byte) (r Request, ok bool) {
	var fields []string
	for len(body) > 0 {
		i := 0
		for i < len(body) && body[i] != 0 {
			i++
		}
		if i == len(body) {
			return r, false // not NUL-terminated
		}
		fields = append(fields, string(body[:i]))
		body = body[i+1:]
	}
	if len(fields) < 5 || fields[0] != Magic {
		return r, false
	}
	ppid, ok1 := atoi(fields[3])
	nargs, ok2 := atoi(fields[4])
	if !ok1 || !ok2 || nargs > len(fields)-5 || fields[1] == "" || fields[2] == "" {
		return r, false
	}
	r = Request{Hookwire: fields[1], Dir: fields[2], PPID: ppid,
		Args: fields[5 : 5+nargs], Env: fields[5+nargs:]}
	return r, true
}

func appendInt(b []byte, n int) []byte {
	if n < 0 {
		n = 0
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
