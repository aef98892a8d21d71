// Package leakcheck fails a test whose goroutines outlive it. It is a leaf
// package so that any package's internal tests can use it.
package leakcheck

import (
	"runtime"
	"testing"
	"time"
)

// Check records the goroutines running now and, when the test ends, fails
// it if more are still running after a grace period for ones that are
// finishing.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}
