//go:build !unix

package testkit

// ForeignListenerMain: there is no other uid to run as here.
func ForeignListenerMain() {}
