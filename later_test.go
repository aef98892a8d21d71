package hookwire_test

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
	"github.com/hookwire/hookwire/internal/testkit/afunix"
)

// A Copilot CLI turn end whose answer is never written, to a VPet that
// accepts and never answers, with the session end queued behind it: the
// hooks return at once, and the finisher that sends both is gone by the
// agentStop hook's deadline (its start plus hook.Budget). The same through
// hookwire, whose one finisher serves the surfaces. The payloads are the
// recording's (testdata/agents/copilot-1.0.102).
func TestLaterFinisherBounded(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for name, argv := range map[string][]string{
		"vpet-notify": {filepath.Join(bin, "vpet-notify")},
		"hookwire":    {filepath.Join(bin, "hookwire"), "--surfaces", "vpet-notify"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			laterFinisherBounded(t, argv)
		})
	}
}

func laterFinisherBounded(t *testing.T, argv []string) {
	dir := t.TempDir()
	afunix.Need(t)
	sock := filepath.Join(dir, "notify.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	rec := filepath.Join("testdata", "agents", "copilot-1.0.102")
	stop, err := os.ReadFile(filepath.Join(rec, "12-agentStop.json"))
	if err != nil {
		t.Fatal(err)
	}
	end, err := os.ReadFile(filepath.Join(rec, "13-sessionEnd.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The events file is never written.
	stop = bytes.Replace(stop, []byte("/home/user/.copilot"), []byte(filepath.Join(dir, ".copilot")), 1)
	log := filepath.Join(dir, "log")
	run := func(event string, payload []byte) {
		cmd := exec.Command(argv[0], append(argv[1:], "--agent", "copilot", event)...)
		cmd.Env = append(baseEnv(dir), "PULSE_LOG="+log, "VPET_NOTIFY_SOCKET="+sock, "VPET_NOTIFY_TOKEN=t0k3n-abcdef", "VPET_NOTIFY_TTY=none")
		cmd.Stdin = bytes.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || out.Len() > 0 {
			t.Fatalf("%s: exit %v, output %q", event, err, out.Bytes())
		}
	}
	start := time.Now()
	run("agentStop", stop)
	run("sessionEnd", end)
	type line struct {
		Outcome string `json:"outcome"`
		PID     int    `json:"finisher_pid"`
	}
	var lines []line
	b, _ := os.ReadFile(log)
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var x line
		if err := json.Unmarshal(l, &x); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if !bytes.Contains(l, []byte(`"binary":"hookwire"`)) {
			lines = append(lines, x) // the surface's lines
		}
	}
	if len(lines) != 2 || lines[0].Outcome != "later" || lines[1].Outcome != "later" || lines[0].PID == 0 || lines[1].PID != lines[0].PID {
		t.Fatalf("the hooks did not hand their events to one finisher: %s", b)
	}
	bound := hook.Budget + margin
	if !testkit.WaitDead(lines[0].PID, time.Until(start.Add(bound))) {
		t.Errorf("the finisher (pid %d) outlived the agentStop hook's deadline (%v)", lines[0].PID, bound)
	}
	if n := len(accepted); n != 1 {
		t.Errorf("VPet was connected to %d times, want once (the turn end; the session end sends nothing)", n)
	}
	b, _ = os.ReadFile(log)
	if !bytes.Contains(b, []byte("not written within")) || !strings.Contains(string(b), `"finisher":true`) {
		t.Errorf("no finisher line saying it gave up waiting for the answer: %s", b)
	}
}
