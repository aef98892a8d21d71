package hookwire_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookwire/hookwire/internal/testkit"
)

// trailbossTarget runs a Trail Boss for the hostile matrix, in this process
// (the binaries under test are subprocesses): the modelled daemon ("ok"),
// one that reads a request and never answers ("hang"), or a closed port
// ("refuse"). What the healthy one accepted is counted in dir/trailboss.got.
// The environment is a Claude Code hook's inside tmux.
func trailbossTarget(t testing.TB, dir, mode string) []string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"TRAILBOSS_URL=http://" + ln.Addr().String(), "TMUX_PANE=%1",
		"CLAUDE_CODE_SESSION_ID=d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"}
	if mode == "refuse" {
		ln.Close()
		return env
	}
	daemon := testkit.NewTrailBoss()
	var mu sync.Mutex
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if mode == "hang" {
			<-r.Context().Done()
			return
		}
		status, reply := daemon.Answer(r.Method, r.URL.Path, body)
		if status == http.StatusOK {
			mu.Lock()
			f, _ := os.OpenFile(filepath.Join(dir, "trailboss.got"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			f.Write(append(body, '\n'))
			f.Close()
			mu.Unlock()
		}
		w.WriteHeader(status)
		io.WriteString(w, reply)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return env
}

func trailbossDelivered(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "trailboss.got"))
	return bytes.Count(b, []byte("\n"))
}

// trailbossLatencyTarget is a daemon that costs nothing: 200 {"ok":true}.
func trailbossLatencyTarget(b *testing.B) []string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"ok":true}`)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return []string{"TRAILBOSS_URL=http://" + ln.Addr().String(), "TMUX_PANE=%1"}
}

// Claude Code runs the hooks of parallel tool calls at once: 16
// PermissionRequests of one session, started together, queue it once. A
// second stuck would move it to the back of the queue.
func TestTrailBossConcurrent(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := append(baseEnv(dir), trailbossTarget(t, dir, "ok")...)
	payload := `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make"}}`
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			cmd := exec.Command(filepath.Join(bin, "trailboss-hook"))
			cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("exit %v, output %q", err, out)
			}
		})
	}
	wg.Wait()
	if n := trailbossDelivered(dir); n != 1 {
		t.Errorf("the daemon got %d stuck events, want 1", n)
	}
}
