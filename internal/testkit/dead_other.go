//go:build !unix

package testkit

import (
	"os"
	"time"
)

// WaitDead reports whether pid exits in time.
func WaitDead(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		p, err := os.FindProcess(pid)
		if err != nil {
			return true
		}
		p.Release()
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
