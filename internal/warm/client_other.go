//go:build !linux

package warm

import "syscall"

// Client has no worker to hand the event to here (the warm path is Linux's:
// SO_PEERCRED, /proc): it tells how to run hookwire itself, which setup
// writes on these systems.
func Client() {
	syscall.Write(2, []byte("hookwire-client: the warm path is Linux only; run hookwire\n"))
	syscall.Exit(0)
}
