package warm

import "syscall"

// answerWait is how long the client waits for the worker to take its
// request: a worker still starting (its predecessor took the last event)
// answers within its start, tens of milliseconds, far more under load. A
// worker that says nothing for this long is wedged: the client runs hookwire
// itself, whose starter then replaces the worker (internal/combined's
// warm_linux.go).
const answerWait = 2 // seconds

// pathBuf is where a path the kernel writes is read from (the directory,
// the executable): a package variable, since one on the stack would grow
// the goroutine's stack, a copy and fresh pages on every event.
var pathBuf [4096]byte

// Client runs the hook through a worker, or else runs hookwire itself. It
// does not return. It reads its arguments and environment as the kernel
// gave them (/proc/self/cmdline and environ): importing os would cost its
// initialisation on every event.
func Client() {
	cmdline := readAll("/proc/self/cmdline", procBuf[:0])
	argv0, args, nargs := splitArgs(cmdline)
	environ := readAll("/proc/self/environ", cmdline[len(cmdline):])
	hookwire := hookwirePath(argv0)
	code, why := handOff(hookwire, nargs, args, environ)
	if why == "" {
		syscall.Exit(code)
	}
	argv := append([]string{hookwire}, fields(args)...)
	env := append(fields(environ), EnvStart+"="+why)
	syscall.Exec(hookwire, argv, env)
	syscall.Exit(0) // no hookwire to run: a hook fails open
}

// handOff gives the event to a worker. why says why none took it (the log
// line of the hookwire the client then runs says it), and then nothing of
// the event was used.
func handOff(hookwire string, nargs int, args, environ []byte) (code int, why string) {
	uid := syscall.Getuid()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, "no socket"
	}
	defer syscall.Close(fd)
	if !connect(fd, stateRoot(environ, uid)) {
		return 0, "no worker listens"
	}
	// The server must be ours: another user's socket at our path would be
	// handed our terminal and everything the agent says.
	if cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED); err != nil || int(cred.Uid) != uid {
		return 0, "the socket is another user's"
	}
	n, err := syscall.Getcwd(pathBuf[:])
	if err != nil || n < 2 {
		return 0, "no working directory"
	}
	// Into procBuf's room after the environment, where it fits: not a
	// heap buffer the environment's size, a fresh span's pages each event.
	msg := Encode(environ[len(environ):], hookwire, string(pathBuf[:n-1]), syscall.Getppid(), nargs, args, environ)
	if len(msg) > MaxRequest {
		return 0, "arguments and environment too large"
	}
	tv := syscall.Timeval{Sec: answerWait}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	if !writeAll(fd, msg) {
		return 0, "the worker did not read the event"
	}
	var b [1]byte
	if n := readByte(fd, b[:]); n != 1 {
		return 0, "no worker answered in time"
	} else if b[0] != Accepted {
		return 0, "the worker refused the event (another hookwire, or an older one)"
	}
	n, err = syscall.SendmsgN(fd, []byte{Go}, syscall.UnixRights(0, 1, 2), nil, 0)
	for err == syscall.EINTR { // the runtime's preemption signal
		n, err = syscall.SendmsgN(fd, []byte{Go}, syscall.UnixRights(0, 1, 2), nil, 0)
	}
	if err != nil || n != 1 {
		return 0, "the worker did not take the descriptors"
	}
	// Taken: the hook runs for as long as it runs (an approval waits for a
	// person). A worker that ends without a status ended as a hook does.
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &syscall.Timeval{})
	if readByte(fd, b[:]) != 1 {
		return 0, ""
	}
	return int(b[0]), ""
}

// connect reaches the worker's socket in dir. A path too long for a socket
// address is reached through its directory's descriptor.
func connect(fd int, dir string) bool {
	path := dir + "/" + SocketName
	if len(path) >= 108 {
		d, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		defer syscall.Close(d)
		path = "/proc/self/fd/" + string(appendInt(nil, d)) + "/" + SocketName
	}
	err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
	for err == syscall.EINTR {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
	}
	return err == nil || err == syscall.EISCONN // EISCONN: connected during the interrupted call
}

// stateRoot is the worker's directory: internal/state's Root, without its last resort (a squatted
// temp directory, where the peer check refuses whoever listens).
func stateRoot(environ []byte, uid int) string {
	if d, ok := lookup(environ, "XDG_RUNTIME_DIR"); ok && len(d) > 0 && d[0] == '/' {
		return trimSlash(d) + "/hookwire/" + Store
	}
	tmp, ok := lookup(environ, "TMPDIR")
	if !ok || tmp == "" {
		tmp = "/tmp"
	}
	return trimSlash(tmp) + "/hookwire-" + string(appendInt(nil, uid)) + "/" + Store
}

// hookwirePath is the hookwire beside the client: beside the path the agent
// ran, else beside the file the kernel ran.
func hookwirePath(argv0 string) string {
	dir := ""
	if i := lastSlash(argv0); i >= 0 {
		dir = argv0[:i]
		if dir == "" {
			dir = "/"
		}
	} else {
		if n, err := syscall.Readlink("/proc/self/exe", pathBuf[:]); err == nil {
			exe := string(pathBuf[:n])
			dir = exe[:max(lastSlash(exe), 0)]
		}
	}
	if dir == "" || dir[0] != '/' {
		if n, err := syscall.Getcwd(pathBuf[:]); err == nil && n > 1 {
			dir = string(pathBuf[:n-1]) + "/" + dir
		}
	}
	return trimSlash(dir) + "/hookwire"
}

// procBuf is where the command line and the environment are read: only
// the pages written are touched, where two heap buffers grew the heap (two
// page faults more, about 15 µs each on a small VM).
var procBuf [64 << 10]byte

// readAll reads path whole, into b's spare room while it lasts.
func readAll(path string, b []byte) []byte {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return b
	}
	defer syscall.Close(fd)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			return b
		}
		b = b[:len(b)+n]
	}
}

func writeAll(fd int, b []byte) bool {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		b = b[n:]
	}
	return true
}

// readByte waits for one byte.
func readByte(fd int, b []byte) int {
	for {
		n, err := syscall.Read(fd, b)
		if err != syscall.EINTR {
			return n
		}
	}
}
