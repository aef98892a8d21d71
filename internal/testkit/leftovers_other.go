//go:build !linux

package testkit

import "time"

// Leftovers needs /proc: elsewhere it finds nothing.
func Leftovers(binDir, runDir string) []string { return nil }

// Settle needs /proc: elsewhere it returns at once.
func Settle(binDir, runDir string, within time.Duration) []string { return nil }
