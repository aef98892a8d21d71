package live

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/testkit"
)

// TestRemoteNumbers measures issue 22's numbers over a real OpenSSH server
// on loopback (testkit.SSHD): the latency from a hook's start on the dev box
// (nb-hook, one Claude Code PreToolUse, Coucou absent there) to this
// desktop's Coucou socket receiving it through `hookwire remote devbox`,
// p50 and p95 over 100 events one after another; and the replay of 1,000
// events the hooks spooled while no desktop was connected, from
// `hookwire remote` starting to the last one received. Both machines are
// this one, so one clock times both ends.
//
// The same hook delivering on this machine is measured first, the
// baseline: on a loaded machine both grow. It always checks that every
// event arrives, once, in order; the issue's
// bounds (50 ms p95, 2 s replay) are checked with HOOKWIRE_REMOTE_BENCH=1,
// on a quiet machine (two cores busy with other builds miss them).
func TestRemoteNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("remote numbers: -short")
	}
	testkit.RequireSSHD(t)
	bin, err := testkit.BuildSuite(moduleRoot, "hookwire_record") // the live suite's build, shared
	if err != nil {
		t.Fatal(err)
	}
	s, err := testkit.StartSSHD()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, b := range []string{"hookwire", "nb-hook"} {
		if err := s.Install(filepath.Join(bin, b), b); err != nil {
			t.Fatal(err)
		}
	}
	host, _ := s.Host("devbox")
	home, err := s.Home(host, "bench")
	if err != nil {
		t.Fatal(err)
	}
	remoteEnv := "env -C " + home + "/proj HOME=" + home + " PATH=" + s.RemoteBin + ":/usr/bin:/bin"

	// The desktop: Coucou's socket, each line's arrival timed.
	desk := t.TempDir()
	if err := os.Mkdir(filepath.Join(desk, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	coucou := &arrivals{at: map[int]time.Time{}}
	ln, err := net.Listen("unix", filepath.Join(desk, "run", "coucou.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go coucou.serve(ln)
	desktop := func() (stop func() string) {
		cmd := exec.Command(filepath.Join(bin, "hookwire"), "remote", "--command", remoteEnv+" hookwire relay", "devbox")
		cmd.Env = []string{"PATH=" + s.Bin + ":/usr/bin:/bin", "HOME=" + desk, "XDG_RUNTIME_DIR=" + filepath.Join(desk, "run")}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return func() string {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
			return stderr.String()
		}
	}
	// runHooks runs n hooks on the dev box, one after another, each line
	// of starts its number and start (Unix ns), and returns the starts.
	runHooks := func(first, n int, pause string) map[int]time.Time {
		script := fmt.Sprintf(`i=%d
while [ $i -lt %d ]; do
	echo "$i $(date +%%s%%N)" >>starts
	printf '{"session_id":"bench","hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_use_id":"bench-%%s","tool_input":{"command":"true"}}' $i | nb-hook --agent claude
	%s
	i=$((i+1))
done`, first, first+n, pause)
		ssh, _ := exec.LookPath("ssh")
		out, err := exec.Command(ssh, "-F", s.Config, "-T", "devbox", remoteEnv+" sh -c "+shellQuote(script)).CombinedOutput()
		if err != nil {
			t.Fatalf("the hooks on the dev box: %v: %s", err, out)
		}
		starts := map[int]time.Time{}
		b, _ := os.ReadFile(filepath.Join(home, "proj", "starts"))
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) != 2 {
				continue
			}
			i, _ := strconv.Atoi(f[0])
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			if i >= first && i < first+n {
				starts[i] = time.Unix(0, ns)
			}
		}
		return starts
	}

	// The baseline: the same hook on the desktop, delivering to its own
	// Coucou (the machine's load shows in both).
	const n = 100
	var local []time.Duration
	for i := -n; i < 0; i++ {
		cmd := exec.Command(filepath.Join(bin, "nb-hook"), "--agent", "claude")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + desk, "XDG_RUNTIME_DIR=" + filepath.Join(desk, "run")}
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"local","hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_use_id":"bench-%d","tool_input":{"command":"true"}}`, i))
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("nb-hook here: %v: %s", err, out)
		}
		local = append(local, coucou.wait(t, i, 1)[i].Sub(start))
	}
	slices.Sort(local)
	t.Logf("baseline, the same hook delivering on this machine, %d events: p50 %v, p95 %v",
		n, local[n/2].Round(100*time.Microsecond), local[n*95/100].Round(100*time.Microsecond))

	// Latency: the desktop connected, 100 events 20 ms apart.
	stop := desktop()
	waitFor(t, filepath.Join(home, ".local", "state", "hookwire", "relay", "relay.sock"))
	starts := runHooks(1, n, "sleep 0.02")
	got := coucou.wait(t, 1, n)
	var lat []time.Duration
	for i := 1; i <= n; i++ {
		lat = append(lat, got[i].Sub(starts[i]))
	}
	slices.Sort(lat)
	p50, p95, worst := lat[n/2], lat[n*95/100], lat[n-1]
	t.Logf("latency over ssh on loopback, remote hook start → desktop Coucou socket, %d events: p50 %v, p95 %v, max %v",
		n, p50.Round(100*time.Microsecond), p95.Round(100*time.Microsecond), worst.Round(100*time.Microsecond))
	stop()

	// Replay: 1,000 events spooled with no desktop, then it connects.
	const m = 1000
	t0 := time.Now()
	runHooks(n+1, m, "")
	spooled := time.Since(t0)
	t1 := time.Now()
	stop = desktop()
	got = coucou.wait(t, n+1, m)
	first, last := got[n+1], got[n+m]
	for i := n + 1; i <= n+m; i++ {
		first, last = minTime(first, got[i]), maxTime(last, got[i])
	}
	replay := last.Sub(t1)
	t.Logf("replay of %d spooled events: %v from hookwire remote's start to the last received (the first after %v: ssh's connection); the %d hooks ran in %v (%v each, ssh's session included)",
		m, replay.Round(time.Millisecond), first.Sub(t1).Round(time.Millisecond), m, spooled.Round(time.Millisecond), (spooled / m).Round(10*time.Microsecond))
	log := stop()
	if !strings.Contains(log, fmt.Sprintf("%d spooled deliveries sent", m)) {
		t.Errorf("the relay did not replay %d spooled deliveries at once; hookwire remote said:\n%s", m, log)
	}

	if os.Getenv("HOOKWIRE_REMOTE_BENCH") == "1" {
		if p95 > 50*time.Millisecond {
			t.Errorf("p95 latency %v, the issue's bound is 50 ms", p95)
		}
		if replay > 2*time.Second {
			t.Errorf("replay of %d events took %v, the issue's bound is 2 s", m, replay)
		}
	}
}

// arrivals times each Coucou line by its event's number (bench-N), and
// keeps the numbers' order of arrival.
type arrivals struct {
	mu    sync.Mutex
	at    map[int]time.Time
	order []int
	dup   int
}

func (a *arrivals) serve(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			line, err := bufio.NewReader(conn).ReadBytes('\n')
			now := time.Now()
			if err != nil {
				return
			}
			id, ok := strings.CutPrefix(gjson.GetBytes(line, "tool_use_id").String(), "bench-")
			i, err := strconv.Atoi(id)
			if !ok || err != nil {
				return
			}
			a.mu.Lock()
			if _, seen := a.at[i]; seen {
				a.dup++
			} else {
				a.at[i] = now
			}
			a.order = append(a.order, i)
			a.mu.Unlock()
			conn.Write([]byte("{\"ok\":true}\n"))
		}()
	}
}

// wait waits (up to 60 s) until events first…first+n-1 all arrived, and
// checks they arrived once each, in order.
func (a *arrivals) wait(t *testing.T, first, n int) map[int]time.Time {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		a.mu.Lock()
		missing := 0
		for i := first; i < first+n; i++ {
			if _, ok := a.at[i]; !ok {
				missing++
			}
		}
		if missing == 0 {
			var order []int
			for _, i := range a.order {
				if i >= first && i < first+n {
					order = append(order, i)
				}
			}
			out := map[int]time.Time{}
			for i := first; i < first+n; i++ {
				out[i] = a.at[i]
			}
			dup := a.dup
			a.mu.Unlock()
			if !slices.IsSorted(order) || dup > 0 {
				t.Errorf("events %d…%d arrived out of order or repeated (%d repeats)", first, first+n-1, dup)
			}
			return out
		}
		a.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("%d of events %d…%d never reached the desktop's Coucou", missing, first, first+n-1)
		}
	}
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not exist after 15 s", path)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
