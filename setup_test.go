package hookwire_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
)

// TestSetupAsks: on a terminal, hookwire setup shows the plan and asks
// before it writes anything: "n" (or just Enter) writes nothing, "y"
// writes. (Without a terminal it exits non-zero unless --yes: the
// setup_*.txtar scripts.)
func TestSetupAsks(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"", "n", "y"} {
		ptmx, tty := openPTYPair(t)
		cmd := exec.Command(filepath.Join(bin, "hookwire"), "setup", "--surfaces", "vpet-notify", "--path", "/usr/local/bin/hookwire")
		cmd.Env = []string{"HOME=" + home, "PATH=" + filepath.Join(home, "none"), "XDG_RUNTIME_DIR=" + home,
			"CORAL_URL=http://127.0.0.1:9", "TRAILBOSS_URL=http://127.0.0.1:9"}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The terminal stays open here until the test ends: once its last
		// other holder exits, Linux may hang the master up before what was
		// written last has been read (setup's "Nothing was changed." was
		// lost so in .ci/run once).
		var mu sync.Mutex
		var out bytes.Buffer
		go func() {
			buf := make([]byte, 4096)
			for {
				n, err := ptmx.Read(buf)
				mu.Lock()
				out.Write(buf[:n])
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		seen := func(s string) bool {
			mu.Lock()
			defer mu.Unlock()
			return strings.Contains(out.String(), s)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !seen("Apply this plan? [y/N] ") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("answer %q: no question after 10 s", answer)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := os.Stat(settings); err == nil {
			t.Fatalf("answer %q: the settings were written before the answer", answer)
		}
		ptmx.Write([]byte(answer + "\n"))
		if err := cmd.Wait(); err != nil {
			t.Fatalf("answer %q: %v", answer, err)
		}
		_, err := os.Stat(settings)
		switch {
		case answer == "y" && err != nil:
			t.Errorf("answer y: the settings were not written: %v", err)
		case answer != "y" && err == nil:
			t.Errorf("answer %q: the settings were written", answer)
		}
		if answer != "y" {
			// What it printed last may still be on its way through the terminal.
			for end := time.Now().Add(5 * time.Second); !seen("Nothing was changed.") && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
			}
			if !seen("Nothing was changed.") {
				t.Errorf("answer %q: no word that nothing changed", answer)
			}
		}
	}
}
