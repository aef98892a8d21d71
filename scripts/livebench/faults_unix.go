//go:build unix

package main

import (
	"os"
	"syscall"
)

// minorFaults is a process's minor page faults: its binary's pages mapped
// in, its memory touched.
func minorFaults(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Minflt)
	}
	return 0
}
