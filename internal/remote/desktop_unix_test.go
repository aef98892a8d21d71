//go:build unix

package remote

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Between deliveries the client is blocked in a read: no polling, no
// timer. Its CPU time over a second of idling is next to nothing.
func TestIdleBlocks(t *testing.T) {
	var carried atomic.Int32
	d := &Desktop{Surfaces: map[string]Surface{Pulse: func(string, Delivery) (Carry, error) {
		carried.Add(1)
		return Carry{Request: blocking{nil}, Within: time.Millisecond}, nil
	}}, Stderr: io.Discard, Once: true}
	script := filepath.Join(t.TempDir(), "relay.sh")
	os.WriteFile(script, []byte(`echo '{"hello":{"v":1}}'; echo '{"seq":1,"t":1,"surface":"pulse","event":"idle"}'; exec sleep 1.5`), 0o600)
	done := make(chan struct{})
	go func() {
		d.Run(context.Background(), []Host{{Name: "h", Argv: []string{"/bin/sh", script}}})
		close(done)
	}()
	for carried.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	before := cpu(t)
	time.Sleep(time.Second)
	used := cpu(t) - before
	<-done
	t.Logf("CPU while idle for 1s: %v", used)
	if used > 20*time.Millisecond {
		t.Errorf("idle for 1s used %v of CPU: something polls", used)
	}
}

func cpu(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
