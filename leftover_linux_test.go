package hookwire_test

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
)

// Nothing of hookwire's outlives its work. Twenty turns of a Claude Code
// session through hookwire, with one surface hung (VPet takes the
// connection and never answers: every hook hands it over to a courier) and
// Pulse's turn ends settled by a finisher: after each hook the agent (this
// test, which is no subreaper) has no child left, alive or a zombie; and
// once a hook's budget has passed after the last one, no process of the
// suite's runs with the session's runtime directory.
//
// Not parallel: a parallel test's children would be this process's too.
func TestNothingLeftBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("eighty hooks, then the couriers' budget: seconds")
	}
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	env := append(baseEnv(dir), "PATH=/usr/bin:/bin", "PULSE_LOG="+filepath.Join(dir, "log"), hook.EnvGrace+"=30ms",
		"VPET_NOTIFY_SOCKET="+filepath.Join(dir, "notify.sock"), "VPET_NOTIFY_TOKEN="+vpetToken, "VPET_NOTIFY_TTY=none")
	serveUnix(t, filepath.Join(dir, "notify.sock"), "hang", nil)
	serveUnix(t, filepath.Join(run, "noctalia-wayland-0.sock"), "", func(c net.Conn) {
		if _, err := bufio.NewReader(c).ReadBytes('\n'); err == nil {
			c.Write([]byte("ok: dispatched 1\n"))
		}
	})
	// A transcript whose turn has no answer yet: each Stop's totals wait
	// for it in a finisher.
	transcript := filepath.Join(dir, "t.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","uuid":"u1","sessionId":"0c0c0c0c-1111-4222-8333-444444444444","message":{"role":"user","content":"go on"},"timestamp":"2026-12-05T10:00:00.000Z"}`+"\n"), 0o600)
	session := `"session_id":"0c0c0c0c-1111-4222-8333-444444444444","transcript_path":"` + transcript + `","cwd":"/tmp"`
	turn := []string{
		`{` + session + `,"hook_event_name":"UserPromptSubmit","prompt":"go on"}`,
		`{` + session + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}`,
		`{` + session + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{},"tool_use_id":"toolu_1"}`,
		`{` + session + `,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`,
	}
	for i := range 20 {
		for _, payload := range turn {
			cmd := exec.Command(filepath.Join(bin, "hookwire"), "--surfaces", "pulse-claude,vpet-notify")
			cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
			out, err := cmd.Output()
			if err != nil || len(out) > 0 {
				t.Fatalf("turn %d: hookwire: %v, stdout %q", i, err, out)
			}
			if kids := children(os.Getpid()); len(kids) > 0 {
				t.Fatalf("turn %d: the agent has children left after the hook: %s", i, strings.Join(kids, "; "))
			}
		}
	}
	if left := testkit.Settle(bin, run, hook.Budget+time.Second); len(left) > 0 {
		t.Errorf("still running a hook's budget after the last hook:\n%s", strings.Join(left, "\n"))
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if !bytes.Contains(log, []byte(`"courier_pid":`)) || !bytes.Contains(log, []byte(`"finisher_pid":`)) {
		t.Errorf("no courier or no finisher was started: the test tested nothing\n%s", log)
	}
}

// children are the processes whose parent is pid, each as "PID STATE COMM".
func children(pid int) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, e.Name()+" "+f[0]+" "+string(stat[bytes.IndexByte(stat, '(')+1:i]))
		}
	}
	return out
}
