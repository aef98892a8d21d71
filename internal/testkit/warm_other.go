//go:build !linux

package testkit

import (
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func cmdWarmReady(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("the warm path is Linux only (a script needs [linux])")
}

// StopWarm has no workers to end here.
func StopWarm(string) {}

// WarmSettled has no workers to wait for here.
func WarmSettled(string, time.Duration) {}

// WarmPing finds no worker here.
func WarmPing(string) int { return 0 }
