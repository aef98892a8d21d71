//go:build unix

package hook

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
)

// TestOutcome: how a wrapped run ended, in the words the surfaces show; with
// no interrupt signal (Windows) an exit is still an exit.
func TestOutcome(t *testing.T) {
	cases := []struct {
		status    int
		sig       os.Signal
		interrupt os.Signal
		d         time.Duration
		kind      agent.Kind
		message   string
	}{
		{0, nil, syscall.SIGINT, 134*time.Second + 700*time.Millisecond, agent.TurnEnd, "exit 0 after 2m14s"},
		{3, nil, syscall.SIGINT, 400 * time.Millisecond, agent.Error, "exit 3 after 0s"},
		{130, syscall.SIGINT, syscall.SIGINT, 5 * time.Second, agent.Interrupted, "interrupted after 5s"},
		{143, syscall.SIGTERM, syscall.SIGINT, time.Hour, agent.Error, "killed by SIGTERM after 1h0m0s"},
		{0, nil, nil, time.Second, agent.TurnEnd, "exit 0 after 1s"},
		{1, nil, nil, time.Second, agent.Error, "exit 1 after 1s"},
	}
	for _, tc := range cases {
		kind, message := outcome(tc.status, tc.sig, tc.interrupt, tc.d)
		if kind != tc.kind || message != tc.message {
			t.Errorf("outcome(%d, %v, %v, %v) = %s %q, want %s %q", tc.status, tc.sig, tc.interrupt, tc.d, kind, message, tc.kind, tc.message)
		}
	}
}
