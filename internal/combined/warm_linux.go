package combined

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/warm"
)

// The worker side of the warm path (internal/warm has the client and the
// wire). A worker is a hookwire process that has started and initialised,
// and waits on the socket for an event; when a client hands it one, it
// takes the client's descriptors, environment and directory for its own and
// runs the hook as hookwire would. A worker serves one event at a time; a
// second waits beside it (warmPool).
//
// An event it let go before delivering (hook.Release: every event no
// surface decides, from a plain hook line) leaves nothing behind once it is
// delivered, and the worker puts its own descriptors, environment and
// directory back and waits for the next: no process starts for it. Any
// other (an approval a person takes a minute to answer, a script's event, a
// command for a person) is its last: it starts its successor, who inherits
// the listening socket, when it lets the client go or once the event has
// run warmBusy, whichever comes first, and ends.

// warmIdle is how long a worker waits for an event before it ends, the
// socket with it: the next event then runs hookwire itself and starts one
// again.
const warmIdle = 30 * time.Minute

// warmPool is how many workers wait at once: an agent's next event often
// comes sooner than a successor takes to start (tens of milliseconds), and
// two agents' events may come together.
const warmPool = 2

// warmBusy is how long a worker runs an event before it hands the socket
// to a successor (and ends once the event is done): an approval a person
// answers, or a script's wrapped command, may take minutes, and the events
// of every other session would otherwise wait for the one worker left, or
// for none. A quick event pays no process start for it.
const warmBusy = 100 * time.Millisecond

// warmPoll is how often a waiting worker checks that its socket is still
// its own (removed with a test's directory, or taken over by a starter).
const warmPoll = time.Second

// warmWait bounds each step of a client's request: a peer that connects and
// says nothing must not hold the worker.
const warmWait = 2 * time.Second

// warmSlack is how late the kernel may fire a worker's timers (its timer
// slack, which every thread a process starts, and every process, inherit).
// The runtime's monitor thread sleeps 20 µs at a time while a goroutine is
// in a system call, each sleep a wake-up: with the slack it wakes about
// once a millisecond instead, and a worker's event takes 40 % fewer
// wake-ups and a sixth less CPU (docs/performance.md). A worker's own
// timers are deadlines, and polls of a few milliseconds (a session's lock
// while its last event delivers).
const warmSlack = time.Millisecond

// StartWarm starts a worker for the next events, detached, when hookwire
// runs as the client's fallback (the client sets warm.EnvStart). It is
// called once the hook is done; the worker's starter checks whether one
// already answers.
func StartWarm() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	strayCloseOnExec()
	// In /, not the directory of the agent whose event started it: a
	// worker that stayed half an hour in a project would keep it busy (an
	// unmount, a removed directory).
	cmd := &exec.Cmd{Path: exe, Args: []string{os.Args[0], "warm", "--start"}, Env: warmEnv(), Dir: "/"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The slack is the thread's that forks; the workers' successors
	// inherit it from them.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil && old > 0 {
		unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(warmSlack), 0, 0, 0)
		defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
	}
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// strayCloseOnExec marks every descriptor past stdio close-on-exec. A
// worker lives up to warmIdle: one the hook inherited without it (a pipe
// of the agent's, a shell's redirection) would stay open that long in the
// worker, and whoever waits for its end would wait with it. This process
// is done with them (its hook has run), and opens its own close-on-exec.
func strayCloseOnExec() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	dir, err := os.ReadDir("/proc/self/fd") // a kernel before 5.11
	if err != nil {
		return
	}
	for _, e := range dir {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// warmEnv is a worker's own environment: where its state lives, and the Go
// runtime's settings. Each event brings its own.
func warmEnv() []string {
	var env []string
	procs := false
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "XDG_RUNTIME_DIR" || k == "TMPDIR" || k == "HOME" || k == "XDG_CACHE_HOME" || strings.HasPrefix(k, "GO") {
			env = append(env, kv)
			procs = procs || k == "GOMAXPROCS"
		}
	}
	if !procs { // a GOMAXPROCS of the user's own wins
		env = append(env, warmProcs)
	}
	return env
}

// warmProcs runs a worker's goroutines one at a time, on one core: an event
// is one hook at a time up to the agent's release, then deliveries that
// mostly wait for the surfaces, and two workers share the cores between
// them. A second processor only handed goroutines from thread to thread:
// with one, a worker's event takes a quarter fewer context switches and an
// eighth less CPU, and the client waits no longer (docs/performance.md).
// Successors inherit it with the rest of the worker's environment; the
// hook's own children get the event's.
const warmProcs = "GOMAXPROCS=1"

// Warm is `hookwire warm`: with no argument, start the workers in the
// background (a person's way; hookwire-client's is EnvStart). StartWarm's
// process, `warm --start`, becomes one unless one answers on the socket;
// `warm --serve` is the successor of one, the listening socket on
// descriptor 3.
func Warm(args []string, _ *os.File, _, stderr io.Writer) int {
	if len(args) == 0 {
		StartWarm()
		return 0
	}
	st, err := state.Open(os.Getenv, warm.Store)
	if err != nil {
		fmt.Fprintf(stderr, "hookwire warm: %v\n", err)
		return 1
	}
	sock := filepath.Join(st.Dir(), warm.SocketName)
	// The sessions' order locks (internal/hook's first.go) of a day ago.
	st.Tidy(24*time.Hour, time.Hour)
	if len(args) == 3 && args[0] == "--serve" {
		ino, _ := strconv.ParseUint(args[1], 10, 64)
		born, _ := strconv.ParseInt(args[2], 10, 64)
		return serveWarm(3, sock, ino, time.UnixMilli(born), 0)
	}
	if len(args) != 1 || args[0] != "--start" {
		fmt.Fprintf(stderr, "hookwire warm: no arguments (it starts the workers hookwire-client hands events to)\n")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*warmWait)
	defer cancel()
	release, err := st.Lock(ctx, "start")
	if err != nil {
		fmt.Fprintf(stderr, "hookwire warm: %v\n", err)
		return 1
	}
	if warmAnswers(sock) {
		release()
		return 0
	}
	ln, ino, err := listenWarm(sock)
	release()
	if err != nil {
		fmt.Fprintf(stderr, "hookwire warm: %v\n", err)
		return 1
	}
	return serveWarm(ln, sock, ino, time.Now(), warmPool-1)
}

// warmAnswers asks the socket's worker a question it refuses at once (an
// empty request): a worker that does not answer within warmWait is wedged,
// and its socket is taken over.
func warmAnswers(sock string) bool { return warmPeer(sock) > 0 }

// warmPeer is the pid of the worker that answers warmAnswers' question, 0
// for none.
func warmPeer(sock string) int {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	if withDir(sock, func(path string) error { return unix.Connect(fd, &unix.SockaddrUnix{Name: path}) }) != nil {
		return 0
	}
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || int(cred.Uid) != os.Getuid() {
		return 0
	}
	tv := unix.NsecToTimeval(warmWait.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	writeAll(fd, []byte{0, 0, 0, 0})
	var b [1]byte
	if n, _ := unix.Read(fd, b[:]); n != 1 {
		return 0
	}
	return int(cred.Pid)
}

// warmCheck is what doctor says of the workers, when setup's hooks run
// hookwire-client. None waiting is no fault: the next event starts them.
func warmCheck(getenv func(string) string) []install.Finding {
	sock := filepath.Join(state.Root(getenv), warm.Store, warm.SocketName)
	if pid := warmPeer(sock); pid > 0 {
		return []install.Finding{{Status: install.OK, What: fmt.Sprintf("warm path: a worker (pid %d) waits on %s", pid, sock)}}
	}
	return []install.Finding{{Status: install.Info,
		What: fmt.Sprintf("warm path: no worker waits on %s (none started yet, or they ended after %d minutes without an event): the next event runs hookwire itself, and starts them", sock, int(warmIdle.Minutes())),
		Fix:  "hookwire warm starts them now"}}
}

// warmEnd ends the workers, for setup --undo: their socket removed, each
// ends within warmPoll (one busy with an event, once it is done). Hooks
// that still run the client start them again.
func warmEnd(getenv func(string) string) string {
	sock := filepath.Join(state.Root(getenv), warm.Store, warm.SocketName)
	var fi unix.Stat_t
	if unix.Lstat(sock, &fi) != nil || fi.Mode&unix.S_IFMT != unix.S_IFSOCK || int(fi.Uid) != os.Getuid() || unix.Unlink(sock) != nil {
		return ""
	}
	return "The warm workers end: their socket " + sock + " is removed."
}

// listenWarm binds the socket (a stale one, of a worker gone, removed
// first), 0600, and returns it with its inode: the worker's claim on the
// path, which a successor checks.
func listenWarm(sock string) (fd int, ino uint64, err error) {
	var fi unix.Stat_t
	if unix.Lstat(sock, &fi) == nil {
		if fi.Mode&unix.S_IFMT != unix.S_IFSOCK {
			return -1, 0, fmt.Errorf("%s is not a socket: not touched", sock)
		}
		unix.Unlink(sock)
	}
	// Non-blocking: the workers share it, and all but one of those a
	// connection wakes find nothing to accept.
	fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return -1, 0, err
	}
	old := unix.Umask(0o077)
	err = withDir(sock, func(path string) error { return unix.Bind(fd, &unix.SockaddrUnix{Name: path}) })
	unix.Umask(old)
	if err == nil {
		err = unix.Listen(fd, 64)
	}
	if err == nil {
		err = unix.Lstat(sock, &fi)
	}
	if err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	return fd, fi.Ino, nil
}

// withDir calls f with a socket's path, or, for one too long for a socket
// address, with a path through its directory's descriptor.
func withDir(sock string, f func(path string) error) error {
	if len(sock) < 108 {
		return f(sock)
	}
	d, err := unix.Open(filepath.Dir(sock), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	return f("/proc/self/fd/" + strconv.Itoa(d) + "/" + filepath.Base(sock))
}

// ours reports whether sock is still the socket the worker was handed.
func ours(sock string, ino uint64) bool {
	var fi unix.Stat_t
	return unix.Lstat(sock, &fi) == nil && fi.Ino == ino
}

// A worker is a process waiting on the listening socket ln (whose inode
// at the path sock is ino) for events.
type worker struct {
	ln    int
	ino   uint64
	born  time.Time // or its last event's end: the idle bound counts from it
	exe   string
	argv0 string
	env   []string // its own, which its successor gets: each event brings its own
	dir   string   // its own directory, put back after each event
	// stdio are its own stdin, stdout and stderr, put back after each
	// event (and kept: their finalizers would close 0, 1 and 2).
	stdio [3]*os.File
	self  unix.Stat_t
	// listener is ln in the runtime's poller; hookwire is what each event
	// runs, built once.
	listener *os.File
	hookwire hook.Combined
}

// accept waits up to warmPoll for a client. conn is -1 when none came,
// another worker took it, or accepting it failed (as before the poller: the
// worker waits again); err says the socket cannot be waited on at all.
func (w *worker) accept() (conn int, err error) {
	raw, err := w.listener.SyscallConn()
	if err != nil {
		return -1, err
	}
	w.listener.SetReadDeadline(time.Now().Add(warmPoll))
	conn = -1
	err = raw.Read(func(fd uintptr) bool {
		c, _, aerr := unix.Accept4(int(fd), unix.SOCK_CLOEXEC)
		if errors.Is(aerr, unix.EAGAIN) {
			return false // another worker took it: wait again
		}
		if aerr == nil {
			conn = c
		}
		return true
	})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return -1, nil // time to look again
	}
	return conn, err
}

// serveWarm waits for events on ln and serves them; it returns when the
// worker ends (idle, its socket gone, its binary replaced, or after an
// event that was its last).
func serveWarm(ln int, sock string, ino uint64, born time.Time, siblings int) int {
	w := &worker{ln: ln, ino: ino, born: born, argv0: os.Args[0], env: os.Environ(), stdio: [3]*os.File{os.Stdin, os.Stdout, os.Stderr}}
	if unix.Stat("/proc/self/exe", &w.self) != nil {
		return 1
	}
	w.exe, _ = os.Executable()
	w.dir, _ = os.Getwd()
	// A successor's socket comes without close-on-exec: what the hooks run
	// (noctalia, a finisher) must not hold it.
	unix.CloseOnExec(ln)
	// Waited on in the runtime's poller, not in a system call: a process
	// whose every goroutine waits there sleeps whole, where one in a system
	// call keeps the runtime's monitor thread waking a hundred times a
	// second, on the agent's cores.
	w.listener = os.NewFile(uintptr(ln), "warm")
	if w.listener == nil {
		return 1
	}
	w.hookwire = Hookwire()
	for range siblings {
		w.succeed()
	}
	for {
		// Idle, its socket gone (a test's directory) or taken over, or its
		// binary replaced or removed (an upgrade, an uninstall): it ends.
		if time.Since(w.born) > warmIdle || !ours(sock, ino) || replaced(w.exe, &w.self) {
			retire(sock, ino)
			return 0
		}
		conn, err := w.accept()
		if err != nil {
			return 1
		} else if conn < 0 {
			continue
		}
		req, pid, ok := takeRequest(conn)
		if !ok {
			unix.Close(conn)
			continue
		}
		if stale(req.Hookwire, &w.self) {
			// A client of another hookwire, or of this one's upgrade: it
			// runs its own; a worker whose binary was replaced ends.
			writeAll(conn, []byte{warm.Refused})
			unix.Close(conn)
			if replaced(w.exe, &w.self) {
				retire(sock, ino)
				return 0
			}
			continue
		}
		files, ok := agreed(conn, pid)
		if !ok {
			unix.Close(conn) // the client gave up first: it runs hookwire itself
			continue
		}
		if code, again := w.run(conn, req, files, pid); !again {
			return code
		}
		w.born = time.Now()
	}
}

// retire removes the socket if it is still this worker's.
func retire(sock string, ino uint64) {
	if ours(sock, ino) {
		unix.Unlink(sock)
	}
}

// takeRequest reads a request from a client of this user. ok is false for
// anything else, answered Refused (a starter's question is one).
func takeRequest(conn int) (req warm.Request, pid int, ok bool) {
	cred, err := unix.GetsockoptUcred(conn, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || int(cred.Uid) != os.Getuid() {
		return req, 0, false
	}
	tv := unix.NsecToTimeval(warmWait.Nanoseconds())
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	head := make([]byte, 4)
	var body []byte
	if fill(conn, head) {
		if size := warm.Length(head); size > 0 && size <= warm.MaxRequest {
			body = make([]byte, size)
			if !fill(conn, body) {
				body = nil
			}
		}
	}
	if req, ok = warm.Decode(body); !ok || (len(req.Args) > 0 && req.Args[0] == "warm") {
		writeAll(conn, []byte{warm.Refused})
		return warm.Request{}, 0, false
	}
	return req, int(cred.Pid), true
}

// agreed sends Accepted and waits for the client's Go, which brings its
// stdin, stdout and stderr: only then is the event this worker's, and the
// client's no longer.
func agreed(conn, pid int) (files []int, ok bool) {
	if !writeAll(conn, []byte{warm.Accepted}) {
		return nil, false
	}
	// While the client wakes to answer: the stat files of the client (pid)
	// and its ancestors, kept for the hook (agent.ProcStat), since the
	// client and its shell are gone once it is let go. Read after Go, they
	// were a quarter of a millisecond more of the agent's wait.
	agent.Remember(pid)
	b := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(3*4))
	n, oobn, _, _, err := unix.Recvmsg(conn, b, oob, unix.MSG_CMSG_CLOEXEC)
	for errors.Is(err, unix.EINTR) { // the runtime's preemption signal
		n, oobn, _, _, err = unix.Recvmsg(conn, b, oob, unix.MSG_CMSG_CLOEXEC)
	}
	if err == nil && oobn > 0 {
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if fds, err := unix.ParseUnixRights(&m); err == nil {
					files = append(files, fds...)
				}
			}
		}
	}
	if err != nil || n != 1 || b[0] != warm.Go || len(files) != 3 {
		for _, f := range files {
			unix.Close(f)
		}
		return nil, false
	}
	return files, true
}

// writeAll writes b whole, and fill reads it whole, through the runtime's
// preemption signals.
func writeAll(fd int, b []byte) bool { return whole(unix.Write, fd, b) }
func fill(fd int, b []byte) bool     { return whole(unix.Read, fd, b) }

func whole(op func(int, []byte) (int, error), fd int, b []byte) bool {
	for len(b) > 0 {
		n, err := op(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		b = b[n:]
	}
	return true
}

// stale reports a request for another hookwire than this process's file.
func stale(hookwire string, self *unix.Stat_t) bool {
	var fi unix.Stat_t
	return unix.Stat(hookwire, &fi) != nil || fi.Dev != self.Dev || fi.Ino != self.Ino
}

// replaced reports that this worker's own path holds another file now (or
// none): it was upgraded, and its clients run the new one.
func replaced(exe string, self *unix.Stat_t) bool { return exe == "" || stale(exe, self) }

// succeed starts a worker on the listening socket: the next one, or the
// starter's second. If it cannot, the socket closes with the last worker,
// and the next client runs hookwire itself, which starts them again.
func (w *worker) succeed() {
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(null)
	args := []string{w.argv0, "warm", "--serve", strconv.FormatUint(w.ino, 10), strconv.FormatInt(time.Now().UnixMilli(), 10)}
	// Not os/exec: it would make the listening socket blocking, for every
	// worker that shares it.
	syscall.ForkExec(w.exe, args, &syscall.ProcAttr{Env: w.env, Dir: "/", // not the event's
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null), uintptr(w.ln)}, Sys: &syscall.SysProcAttr{Setsid: true}})
}

// run becomes the client's process for the hook, runs it, and lets the
// client go with its status (or earlier: hook.Release). again is true when
// the worker is its own again, ready for the next event.
func (w *worker) run(conn int, req warm.Request, files []int, pid int) (code int, again bool) {
	goroutines := runtime.NumGoroutine()
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{})
	restore := w.become(req, files, pid)
	var once, last sync.Once
	early, handed := false, false
	// The worker's last event: the next worker starts while this one
	// delivers or ends, and waits ready for its next event.
	hand := func() {
		last.Do(func() {
			handed = true
			w.succeed()
			w.listener.Close()
		})
	}
	var gone atomic.Bool
	watched := w.watch(conn, &gone, hand)
	busy := time.AfterFunc(warmBusy, hand)
	letGo := func(code int, release bool) {
		once.Do(func() {
			busy.Stop()
			gone.Store(true)
			early = release
			os.Stdin.Close()
			os.Stdout.Close()
			os.Stderr.Close()
			writeAll(conn, []byte{byte(code)})
			if !release {
				hand()
			}
		})
	}
	hook.Warm = true
	hook.Release = func() { letGo(0, true) }
	hook.Exiting = hand // the watchdog ends this process
	code = hook.RunCombined(w.hookwire, req.Args, os.Stdin, os.Stdout, os.Stderr)
	letGo(code, false)
	if !early {
		return code, false
	}
	// Let go and delivered: the worker puts back what it took, and serves
	// the next event if the hook left nothing running.
	unix.Shutdown(conn, unix.SHUT_RDWR)
	<-watched
	unix.Close(conn)
	restore()
	if !settled(goroutines) {
		hand()
	}
	last.Do(func() {}) // handed is read, and set no more
	return code, !handed
}

// watch ends the worker, after hand, when the client goes before gone is
// set, before it was let go (the agent killed it): that is this hook
// killed, and what it started dies with it, as it would have. The channel
// closes once the connection does.
func (w *worker) watch(conn int, gone *atomic.Bool, hand func()) <-chan struct{} {
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		var b [1]byte
		fill(conn, b[:])
		if !gone.Load() {
			transport.KillAll()
			hand()
			os.Exit(0)
		}
	}()
	return watched
}

// become makes the client's arguments, environment, directory, parent and
// descriptors this process's, and returns what puts the worker's own back.
func (w *worker) become(req warm.Request, files []int, pid int) (restore func()) {
	args := os.Args
	os.Args = append([]string{w.argv0}, req.Args...)
	setEnv(req.Env)
	os.Chdir(req.Dir)
	agent.HookProcess = func() (int, int) { return pid, req.PPID }
	os.Stdin = os.NewFile(uintptr(files[0]), "/dev/stdin")
	os.Stdout = os.NewFile(uintptr(files[1]), "/dev/stdout")
	os.Stderr = os.NewFile(uintptr(files[2]), "/dev/stderr")
	return func() {
		os.Stdin, os.Stdout, os.Stderr = w.stdio[0], w.stdio[1], w.stdio[2]
		os.Args = args
		setEnv(w.env)
		os.Chdir(w.dir)
		agent.HookProcess = agent.OwnProcess
		agent.Remember(0)
		hook.Renew()
	}
}

// settled waits a little for the goroutines the hook started to end (one
// that has sent its last result returns a moment later), and reports
// whether they did: none is left to act in the next event's process.
func settled(goroutines int) bool {
	for range 50 {
		if runtime.NumGoroutine() <= goroutines {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// setEnv makes env the process's environment.
func setEnv(env []string) {
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			os.Setenv(k, v)
		}
	}
}
