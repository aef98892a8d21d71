//go:build linux

package hookwire_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/warm"
)

// The warm path (internal/warm, internal/combined's warm_linux.go), with the
// released binaries: hookwire-client in an agent's place, hookwire beside it,
// the workers they start, and a Coucou app that records every line.

// warmRig is a machine with hookwire and hookwire-client installed in bin.
type warmRig struct {
	t        *testing.T
	dir, bin string
	env      []string
}

func newWarmRig(t *testing.T, coucouMode string) *warmRig {
	t.Helper()
	suite, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	r := &warmRig{t: t, dir: t.TempDir()}
	r.bin = filepath.Join(r.dir, "bin")
	os.Mkdir(r.bin, 0o755)
	for _, b := range []string{"hookwire", warm.ClientName} {
		copyFile(t, filepath.Join(suite, b), filepath.Join(r.bin, b))
	}
	r.env = append(baseEnv(r.dir), "PATH="+r.bin, "PULSE_LOG="+filepath.Join(r.dir, "log"))
	if coucouMode != "none" {
		r.env = append(r.env, coucouTarget(t, r.dir, coucouMode)...)
	}
	t.Cleanup(r.stopWorkers)
	return r
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	// Written beside and renamed into place, as a package manager upgrades:
	// a new file, never a running one changed.
	tmp := to + ".new"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

func (r *warmRig) sock() string {
	return filepath.Join(r.dir, "run", "hookwire", warm.Store, warm.SocketName)
}

// run runs the hook line (hookwire-client, or hookwire with client false)
// with payload on stdin, as an agent does.
func (r *warmRig) run(client bool, payload []byte, args ...string) (stdout []byte, code int, took time.Duration) {
	r.t.Helper()
	name := "hookwire"
	if client {
		name = warm.ClientName
	}
	cmd := exec.Command(filepath.Join(r.bin, name), args...)
	cmd.Env, cmd.Dir = r.env, r.dir
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	if errb.Len() > 0 {
		r.t.Errorf("%s wrote on stderr: %q", name, errb.Bytes())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return out.Bytes(), ee.ExitCode(), took
	} else if err != nil {
		r.t.Fatal(err)
	}
	return out.Bytes(), 0, took
}

// ready waits for a worker to answer, and returns its pid.
func (r *warmRig) ready() int {
	r.t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if pid := testkit.WarmPing(r.sock()); pid > 0 {
			return pid
		}
	}
	r.t.Fatal("no warm worker answers")
	return 0
}

// started starts the workers as a machine's first event does (the client
// runs hookwire, which starts them), and returns their pids once both wait.
func (r *warmRig) started() []int {
	r.t.Helper()
	r.run(true, nil, "--version")
	r.ready()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if pids := r.workers(); len(pids) == 2 {
			return pids
		}
	}
	r.t.Fatalf("workers %v wait (want 2)", r.workers())
	return nil
}

// workers are the pids of the rig's workers, read from /proc.
func (r *warmRig) workers() []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if bytes.HasPrefix(b, []byte(filepath.Join(r.bin, "hookwire")+"\x00warm")) {
			if st, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); !bytes.Contains(st, []byte(") Z ")) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// stopWorkers ends the rig's workers, as a machine's end would.
func (r *warmRig) stopWorkers() {
	for _, pid := range r.workers() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// lines are the Coucou app's lines so far, once n have come (or 5 s passed).
func (r *warmRig) lines(n int) []string {
	r.t.Helper()
	var got []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(r.dir, "coucou.got"))
		got = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(b) == 0 {
			got = nil
		}
		if len(got) >= n {
			break
		}
	}
	return got
}

// logLines are the debug log's lines of the hookwire process itself.
func (r *warmRig) logLines() []string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "log"))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"binary":"hookwire"`) {
			out = append(out, l)
		}
	}
	return out
}

// logWait is logLines once n have come (or 5 s passed).
func (r *warmRig) logWait(n int) []string {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if l := r.logLines(); len(l) >= n {
			return l
		}
	}
	return r.logLines()
}

// events are the hookwire lines of the log for the event named.
func (r *warmRig) events(name string) []string {
	var out []string
	for _, l := range r.logLines() {
		if strings.Contains(l, `"event":"`+name+`"`) {
			out = append(out, l)
		}
	}
	return out
}

func claudePayload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "agents", "claude-2.1.328", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withSession is a Claude Code payload of another session.
func withSession(p []byte, session string) []byte {
	return sessionID.ReplaceAll(p, []byte(`"session_id":"`+session+`"`))
}

var (
	sessionID = regexp.MustCompile(`"session_id":"[^"]*"`)
	logField  = regexp.MustCompile(`"(agent|event|kind|session)":"[^"]*"`)
)

// missing is what of want got lacks (both sorted).
func missing(want, got []string) []string {
	var out []string
	for _, w := range want {
		if i, ok := slices.BinarySearch(got, w); ok {
			got = slices.Delete(slices.Clone(got), i, i+1)
		} else {
			out = append(out, w)
		}
	}
	return out
}

// Every recorded payload of every agent: the client's stdout and status are
// exactly hookwire's own, through a worker, the events let go before their
// delivery included. The stdout is the agent's protocol reply (a decision, or
// the neutral reply its protocol expects, or nothing).
func TestWarmSameReplies(t *testing.T) {
	// The app allows every approval: an event let go that a surface would
	// have decided shows as the neutral reply where hookwire prints "allow".
	r := newWarmRig(t, "allow")
	payloads, _ := filepath.Glob("testdata/agents/*/*.json")
	more, _ := filepath.Glob("testdata/agents/*/*/*.json")
	payloads = append(payloads, more...)
	if len(payloads) < 100 {
		t.Fatalf("only %d recorded payloads", len(payloads))
	}
	r.run(true, nil, "--version") // no worker yet: hookwire itself, which starts one
	decided := 0
	for _, p := range payloads {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Base(filepath.Dir(p))
		if strings.Count(p, "/") == 4 {
			dir = filepath.Base(filepath.Dir(filepath.Dir(p)))
		}
		agentName, _, _ := strings.Cut(dir, "-")
		args := []string{"--agent", agentName}
		want, wantCode, _ := r.run(false, b, args...)
		r.ready()
		got, code, _ := r.run(true, b, args...)
		if bytes.Contains(want, []byte("allow")) {
			decided++
		}
		if !bytes.Equal(got, want) || code != wantCode {
			t.Errorf("%s: through the worker %q (status %d), hookwire itself %q (status %d)", p, got, code, want, wantCode)
		}
	}
	if decided == 0 {
		t.Error("no recorded event was decided: the app's allow reached no reply")
	}
	t.Logf("%d payloads, %d of them decided by the app", len(payloads), decided)
	// Each event's line, the worker's written once it has delivered: one of
	// hookwire's own and one of a worker's for each.
	var cold, warmed []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		cold, warmed = nil, nil
		for _, l := range r.logLines() {
			key := strings.Join(logField.FindAllString(l, -1), ",")
			if key == "" {
				continue // the first client's --version
			}
			if strings.Contains(l, `"warm":true`) {
				warmed = append(warmed, key)
			} else {
				cold = append(cold, key)
			}
		}
		if len(warmed) >= len(payloads) {
			break
		}
	}
	slices.Sort(cold)
	slices.Sort(warmed)
	if len(cold) != len(payloads) || !slices.Equal(cold, warmed) {
		t.Errorf("%d payloads: %d lines of hookwire's own, %d of the worker's; not the worker's: %q", len(payloads), len(cold), len(warmed), missing(cold, warmed))
		for _, l := range r.logLines() {
			if strings.Contains(l, "hookwire-client ran hookwire itself") {
				t.Log(l)
			}
		}
	}
}

// No worker: the client runs hookwire, which delivers and starts one; the
// next event is the worker's, let go before its delivery.
func TestWarmStartsOnDemand(t *testing.T) {
	r := newWarmRig(t, "")
	prompt := claudePayload(t, "02-UserPromptSubmit.json")
	if out, code, _ := r.run(true, prompt); len(out) > 0 || code != 0 {
		t.Fatalf("the first event: %q, status %d", out, code)
	}
	if got := r.lines(1); len(got) != 1 {
		t.Fatalf("the first event reached Coucou %d times", len(got))
	}
	r.ready()
	if out, code, _ := r.run(true, claudePayload(t, "14-Stop.json")); len(out) > 0 || code != 0 {
		t.Fatalf("the second event: %q, status %d", out, code)
	}
	got := r.lines(2)
	if len(got) != 2 || !strings.Contains(got[1], `"Stop"`) {
		t.Fatalf("Coucou got %q", got)
	}
	log := r.logWait(2) // the worker's line comes once it has delivered
	if len(log) != 2 || strings.Contains(log[0], `"warm"`) || !strings.Contains(log[0], "hookwire-client ran hookwire itself (no worker listens)") ||
		!strings.Contains(log[1], `"warm":true`) ||
		!strings.Contains(log[1], "let go before the surfaces were told") {
		t.Fatalf("log:\n%s", strings.Join(log, "\n"))
	}
	if n := len(r.workers()); n != 2 {
		t.Errorf("%d workers wait (want 2)", n)
	}
}

// Workers serve event after event, no process started for any: each
// event in its own environment and directory, none of which reaches the
// next, and each worker back in its own directory in between.
func TestWarmServesOn(t *testing.T) {
	r := newWarmRig(t, "")
	before := r.started()
	home := map[int]string{}
	for _, pid := range before {
		// In /, not where the event that started them ran.
		if home[pid], _ = os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); home[pid] != "/" {
			t.Errorf("worker %d waits in %s, not /", pid, home[pid])
		}
	}
	prompt := claudePayload(t, "02-UserPromptSubmit.json")
	for i := range 8 {
		dir := filepath.Join(r.dir, fmt.Sprintf("project-%d", i))
		os.Mkdir(dir, 0o700)
		cmd := exec.Command(filepath.Join(r.bin, warm.ClientName))
		cmd.Env, cmd.Dir = r.env, dir
		if i%2 == 0 {
			cmd.Env = append(slices.Clone(r.env), "TERM_PROGRAM=iTerm.app", fmt.Sprintf("ITERM_SESSION_ID=w0t0p%d", i))
		}
		cmd.Stdin = bytes.NewReader(withSession(prompt, fmt.Sprintf("session-%d", i)))
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("event %d: %q, %v", i, out, err)
		}
		r.lines(i + 1) // delivered before the next comes
	}
	got := r.lines(8)
	if len(got) != 8 {
		t.Fatalf("Coucou got %d lines", len(got))
	}
	for _, line := range got {
		i := strings.Index(line, `"session-`)
		n, _ := strconv.Atoi(line[i+9 : i+10])
		if want := fmt.Sprintf(`"iterm_session_id":"w0t0p%d"`, n); n%2 == 0 != strings.Contains(line, want) || n%2 == 1 && strings.Contains(line, "iterm") {
			t.Errorf("session-%d's line, with its terminal's environment only if %v: %s", n, n%2 == 0, line)
		}
	}
	if warmed := len(r.logWait(9)) - 1; warmed != 8 || len(r.events("UserPromptSubmit")) != 8 {
		t.Errorf("%d events served warm", warmed)
	}
	after := r.workers()
	slices.Sort(before)
	slices.Sort(after)
	if !slices.Equal(before, after) {
		t.Errorf("workers %v before the events, %v after: a worker ended or started", before, after)
	}
	for _, pid := range after {
		if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd != home[pid] {
			t.Errorf("worker %d is in %s after the events, not its own %s", pid, cwd, home[pid])
		}
	}
}

// An agent that leaves the pipe open after a whole payload: the hook does not
// wait for its end, and the worker whose stdin reader still waits on it
// serves no other event (settled): it starts a successor and ends, the
// reader with it. The workers serve on.
func TestWarmOpenStdin(t *testing.T) {
	r := newWarmRig(t, "")
	before := r.started()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	pw.Write(claudePayload(t, "02-UserPromptSubmit.json"))
	cmd := exec.Command(filepath.Join(r.bin, warm.ClientName))
	cmd.Env, cmd.Dir, cmd.Stdin = r.env, r.dir, pr
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("%q, %v", out, err)
	}
	pr.Close()
	if got := r.lines(1); len(got) != 1 {
		t.Fatalf("delivered %d times", len(got))
	}
	time.Sleep(300 * time.Millisecond)
	during := r.workers()
	if kept := slices.DeleteFunc(slices.Clone(during), func(pid int) bool { return !slices.Contains(before, pid) }); len(during) != 2 || len(kept) != 1 {
		t.Errorf("workers %v, then %v while the pipe is open: want one of them replaced", before, during)
	}
	pw.Close()
	if out, code, _ := r.run(true, claudePayload(t, "14-Stop.json")); len(out) > 0 || code != 0 {
		t.Fatalf("the next event: %q, status %d", out, code)
	}
	if got := r.lines(2); len(got) != 2 {
		t.Fatalf("Coucou got %d lines", len(got))
	}
	if log := r.logWait(3); len(log) != 3 || !strings.Contains(log[2], `"warm":true`) {
		t.Errorf("log:\n%s", strings.Join(log, "\n"))
	}
	for end := time.Now().Add(3 * time.Second); len(r.workers()) != 2 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(r.workers()); n != 2 {
		t.Errorf("%d workers wait (want 2)", n)
	}
}

// An event let go early is still delivered before the session's next one:
// the next waits for it, not the surface for the next. The app reads the
// first event's line only after 300 ms.
func TestWarmKeepsOrder(t *testing.T) {
	r := newWarmRig(t, "none")
	path := filepath.Join(r.dir, "coucou.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var got []string
	first := true
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			slow := first
			first = false
			mu.Unlock()
			go func() {
				defer c.Close()
				if slow { // within nb-hook's wait for the app's ack
					time.Sleep(250 * time.Millisecond)
				}
				line, _ := bufio.NewReader(c).ReadString('\n')
				mu.Lock()
				got = append(got, line)
				mu.Unlock()
				c.Write([]byte(`{"ok":true}` + "\n"))
			}()
		}
	}()
	r.env = append(r.env, "COUCOU_SOCKET="+path)
	r.run(true, nil, "--version") // starts the workers
	r.ready()
	r.run(true, claudePayload(t, "02-UserPromptSubmit.json"))
	r.ready()
	r.run(true, claudePayload(t, "14-Stop.json"))
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || !strings.Contains(got[0], "UserPromptSubmit") || !strings.Contains(got[1], `"Stop"`) {
		t.Fatalf("the app read, in order: %q", got)
	}
	r.logWait(3)
	if log := r.events("UserPromptSubmit"); len(log) != 1 || !strings.Contains(log[0], "let go before the surfaces were told") {
		t.Fatalf("the prompt was not let go first:\n%s", strings.Join(log, "\n"))
	}
}

// An upgrade: the file at hookwire's path is new. The worker of the old one
// refuses the event and ends (or has ended already, having seen the file
// replaced), the client runs the new one, which starts its own workers. The
// event is delivered once.
func TestWarmUpgrade(t *testing.T) {
	r := newWarmRig(t, "")
	r.run(true, nil, "--version")
	r.ready()
	old := r.workers()
	if len(old) != 2 {
		t.Fatalf("%d workers", len(old))
	}
	suite, _ := testkit.BuildSuite(".")
	copyFile(t, filepath.Join(suite, "hookwire"), filepath.Join(r.bin, "hookwire"))
	if out, code, _ := r.run(true, claudePayload(t, "02-UserPromptSubmit.json")); len(out) > 0 || code != 0 {
		t.Fatalf("%q, status %d", out, code)
	}
	if got := r.lines(1); len(got) != 1 {
		t.Fatalf("delivered %d times", len(got))
	}
	// The old worker refuses the event, or has seen its file replaced
	// (it looks as it starts to wait, and every second) and gone with the
	// socket already.
	if log := r.events("UserPromptSubmit"); len(log) != 1 || strings.Contains(log[0], `"warm"`) ||
		!strings.Contains(log[0], "(the worker refused the event") && !strings.Contains(log[0], "(no worker listens)") {
		t.Fatalf("the event was not hookwire's own (the new file's):\n%s", strings.Join(log, "\n"))
	}
	for _, pid := range old {
		if !testkit.WaitDead(pid, 3*time.Second) {
			t.Errorf("the old worker %d still runs", pid)
		}
	}
	r.ready()
}

// A worker that does not answer (stopped) costs one event the client's
// wait, which then runs hookwire itself; its starter takes the socket over.
func TestWarmWedgedWorker(t *testing.T) {
	r := newWarmRig(t, "")
	r.run(true, nil, "--version")
	r.ready()
	stopped := r.workers()
	for _, pid := range stopped {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	out, code, took := r.run(true, claudePayload(t, "02-UserPromptSubmit.json"))
	if len(out) > 0 || code != 0 {
		t.Fatalf("%q, status %d", out, code)
	}
	if took > 4*time.Second {
		t.Errorf("the client took %v", took)
	}
	if got := r.lines(1); len(got) != 1 {
		t.Fatalf("delivered %d times", len(got))
	}
	if log := r.events("UserPromptSubmit"); len(log) != 1 || !strings.Contains(log[0], "(no worker answered in time)") {
		t.Errorf("log:\n%s", strings.Join(log, "\n"))
	}
	pid := r.ready()
	for _, s := range stopped {
		if s == pid {
			t.Fatalf("the stopped worker %d answers", pid)
		}
		syscall.Kill(s, syscall.SIGCONT) // and finds the socket not its own
	}
	for _, s := range stopped {
		if !testkit.WaitDead(s, 3*time.Second) {
			t.Errorf("the stopped worker %d did not end", s)
		}
	}
	time.Sleep(300 * time.Millisecond) // a second delivery, if any, has come
	if got := r.lines(1); len(got) != 1 {
		t.Errorf("delivered %d times", len(got))
	}
}

// The agent kills a hook that waits (an approval the app never answers):
// the worker that ran it ends too, with what it started.
func TestWarmClientKilled(t *testing.T) {
	r := newWarmRig(t, "hang")
	r.run(true, nil, "--version")
	r.ready()
	approval := filepath.Join(r.dir, "approval")
	os.Mkdir(approval, 0o700)
	cmd := exec.Command(filepath.Join(r.bin, warm.ClientName))
	cmd.Env, cmd.Dir = r.env, approval
	cmd.Stdin = bytes.NewReader(claudePayload(t, "permission-request/04-PermissionRequest.json"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The worker that took it is the one in the client's directory.
	worker := 0
	for end := time.Now().Add(5 * time.Second); worker == 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, pid := range r.workers() {
			if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == approval {
				worker = pid
			}
		}
	}
	if worker == 0 {
		t.Fatal("no worker took the approval")
	}
	time.Sleep(200 * time.Millisecond)
	if testkit.WaitDead(worker, 0) {
		t.Fatal("the worker ended before the approval was answered")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !testkit.WaitDead(worker, 3*time.Second) {
		t.Error("the worker still runs the approval of a client that was killed")
	}
	// Its successor started once (when the approval outlasted warmBusy),
	// not again as it ended: two workers wait, as before.
	r.ready()
	time.Sleep(300 * time.Millisecond)
	if pids := r.workers(); len(pids) != 2 {
		t.Errorf("workers %v wait after the approval's end (want 2)", pids)
	}
}

// Every thread of both workers (the first, and the sibling it starts, as
// it starts its successors) has the workers' timer slack; this test's own,
// which its hooks and their hookwire inherit, is not that.
func TestWarmTimerSlack(t *testing.T) {
	r := newWarmRig(t, "none")
	workers := r.started()
	own, err := os.ReadFile(fmt.Sprintf("/proc/%d/timerslack_ns", os.Getpid()))
	if err != nil {
		t.Skipf("no timer slack to read here: %v", err)
	}
	for _, pid := range workers {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil || len(tasks) == 0 {
			t.Fatalf("worker %d's threads: %v %v", pid, tasks, err)
		}
		for _, task := range tasks {
			b, err := os.ReadFile("/proc/" + task.Name() + "/timerslack_ns")
			if errors.Is(err, fs.ErrNotExist) {
				continue // a thread that ended
			} else if err != nil {
				t.Skipf("worker %d's timer slack cannot be read here: %v", pid, err)
			}
			if got := strings.TrimSpace(string(b)); got != "1000000" {
				t.Errorf("worker %d, thread %s: timer slack %s ns, want 1000000 (this test's: %s)", pid, task.Name(), got, strings.TrimSpace(string(own)))
			}
		}
	}
	if strings.TrimSpace(string(own)) == "1000000" {
		t.Errorf("this test runs with the workers' slack already: the check says nothing")
	}
}

// Both workers (the first, and the sibling it starts, as it starts its
// successors) run their goroutines on one processor, which their
// environment asks the runtime for; a GOMAXPROCS of the user's own, from
// the hook's environment, wins.
func TestWarmOneProcessor(t *testing.T) {
	for _, own := range []string{"", "3"} {
		r := newWarmRig(t, "none")
		want := "GOMAXPROCS=1"
		if slices.ContainsFunc(r.env, func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") }) {
			t.Fatalf("the rig's environment sets GOMAXPROCS already: the check says nothing")
		}
		if own != "" {
			want = "GOMAXPROCS=" + own
			r.env = append(r.env, want)
		}
		for _, pid := range r.started() {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if err != nil {
				t.Fatalf("worker %d's environment: %v", pid, err)
			}
			var procs []string
			for _, kv := range strings.Split(string(b), "\x00") {
				if strings.HasPrefix(kv, "GOMAXPROCS=") {
					procs = append(procs, kv)
				}
			}
			if !slices.Equal(procs, []string{want}) {
				t.Errorf("worker %d (hook environment with GOMAXPROCS %q): %q, want %s", pid, own, procs, want)
			}
		}
		r.stopWorkers()
	}
}

// A descriptor the agent's hook inherited without close-on-exec (a pipe the
// agent reads to its end) is not kept by the workers the first event
// starts, which live for half an hour: the pipe ends with the client and
// its hookwire.
func TestWarmKeepsNoStrayDescriptor(t *testing.T) {
	r := newWarmRig(t, "")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command(filepath.Join(r.bin, warm.ClientName))
	cmd.Env, cmd.Dir = r.env, r.dir
	cmd.Stdin = bytes.NewReader(claudePayload(t, "02-UserPromptSubmit.json"))
	cmd.ExtraFiles = []*os.File{pw} // descriptor 3, inherited as it is
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r.ready()
	pr.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(pr); err != nil {
		t.Fatalf("the pipe did not end: %v (workers %v hold it)", err, r.workers())
	}
}

// Two approvals wait for a person (the app never answers): each worker
// that took one starts its successor, and the next session's event is
// served warm, not kept waiting for a worker until the client gives up.
func TestWarmApprovalsLeaveWorkers(t *testing.T) {
	r := newWarmRig(t, "hang")
	r.started()
	var waiting []*exec.Cmd
	for i := range 2 {
		cmd := exec.Command(filepath.Join(r.bin, warm.ClientName))
		cmd.Env, cmd.Dir = r.env, r.dir
		cmd.Stdin = bytes.NewReader(withSession(claudePayload(t, "permission-request/04-PermissionRequest.json"), fmt.Sprintf("asking-%d", i)))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waiting = append(waiting, cmd)
	}
	t.Cleanup(func() {
		for _, cmd := range waiting {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// Two workers busy with the approvals, and two waiting beside them.
	for end := time.Now().Add(10 * time.Second); len(r.workers()) < 4; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("workers %v (want the two busy and two waiting)", r.workers())
		}
	}
	r.ready()
	// The successors wait in /, not in the directory of the approval their
	// predecessor was running when it started them.
	inRoot := 0
	for _, pid := range r.workers() {
		if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == "/" {
			inRoot++
		}
	}
	if inRoot != 2 {
		t.Errorf("%d of the workers wait in / (want the two successors)", inRoot)
	}
	if out, code, _ := r.run(true, withSession(claudePayload(t, "02-UserPromptSubmit.json"), "another")); len(out) > 0 || code != 0 {
		t.Fatalf("%q, status %d", out, code)
	}
	for end := time.Now().Add(10 * time.Second); len(r.events("UserPromptSubmit")) == 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if log := r.events("UserPromptSubmit"); len(log) != 1 || !strings.Contains(log[0], `"warm":true`) || strings.Contains(log[0], "hookwire-client ran hookwire itself") {
		t.Errorf("the event beside the approvals was not served warm:\n%s", strings.Join(log, "\n"))
	}
}

// Sixteen sessions' events at once: each is delivered once, every client
// exits 0 with nothing on stdout.
func TestWarmConcurrent(t *testing.T) {
	r := newWarmRig(t, "")
	r.run(true, nil, "--version")
	r.ready()
	prompt := claudePayload(t, "02-UserPromptSubmit.json")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, code, _ := r.run(true, withSession(prompt, fmt.Sprintf("session-%02d", i))); len(out) > 0 || code != 0 {
				t.Errorf("client %d: %q, status %d", i, out, code)
			}
		}()
	}
	wg.Wait()
	got := r.lines(16)
	for i := range 16 {
		if n := strings.Count(strings.Join(got, "\n"), fmt.Sprintf(`"session-%02d"`, i)); n != 1 {
			t.Errorf("session-%02d reached Coucou %d times", i, n)
		}
	}
}

// Another user's socket where the worker's would be (the temp directory's
// state directory squatted): the client hands it nothing, not even its
// environment, and runs hookwire itself, which delivers the event.
func TestWarmForeignSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a listener as another uid")
	}
	r := newWarmRig(t, "")
	tmp := filepath.Join(r.dir, "t")
	squat := filepath.Join(tmp, "hookwire-"+strconv.Itoa(os.Getuid()), warm.Store)
	if err := os.MkdirAll(squat, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(r.dir), 0o755) // the other user reaches its socket
	os.Chmod(r.dir, 0o755)
	os.Chmod(tmp, 0o1777)
	const nobody = 65534
	for _, d := range []string{filepath.Dir(squat), squat} {
		os.Chown(d, nobody, nobody)
	}
	received := testkit.ForeignUnixListener(t, nobody, filepath.Join(squat, warm.SocketName))
	var env []string
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	r.env = append(env, "TMPDIR="+tmp, "SECRET_TOKEN=s3cret")
	if out, code, _ := r.run(true, claudePayload(t, "02-UserPromptSubmit.json")); len(out) > 0 || code != 0 {
		t.Fatalf("%q, status %d", out, code)
	}
	if got := r.lines(1); len(got) != 1 {
		t.Fatalf("delivered %d times", len(got))
	}
	if b := received(); len(b) > 0 {
		t.Fatalf("the other user's socket got %q", b)
	}
}

// What a surface is told of the process the agent ran (VPet's ppid and
// tty: the pet finds the agent's terminal window by them) is the client's,
// not the worker's: the same as hookwire run in the client's place.
func TestWarmIsTheClientsProcess(t *testing.T) {
	r := newWarmRig(t, "none")
	r.env = append(r.env, vpetTarget(t, r.dir, "ok")...)
	r.env = append(r.env, "VPET_NOTIFY_TOKEN="+vpetToken)
	_, tty := openPTYPair(t)
	stop := claudePayload(t, "14-Stop.json")
	run := func(name string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(r.bin, name))
		cmd.Env, cmd.Dir = r.env, r.dir
		cmd.Stdin = bytes.NewReader(stop)
		// A terminal of its own, as an agent's hook in a terminal has.
		cmd.ExtraFiles = []*os.File{tty}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("%s: %v %q", name, err, out)
		}
	}
	run("hookwire")
	r.run(true, nil, "--version")
	r.ready()
	run(warm.ClientName)
	var bodies []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(r.dir, "vpet.got"))
		if bodies = strings.Split(strings.TrimSpace(string(b)), "\n"); len(bodies) == 2 {
			break
		}
	}
	if len(bodies) != 2 {
		t.Fatalf("the pet got %q", bodies)
	}
	want := fmt.Sprintf(`"ppid":%d,"cwd":"/home/user/proj","tty":%q`, os.Getpid(), tty.Name())
	for i, b := range bodies {
		if !strings.Contains(b, want) {
			t.Errorf("event %d (%s): %s\nwant %s", i+1, []string{"hookwire", "through the worker"}[i], b, want)
		}
	}
}
