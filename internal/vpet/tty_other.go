//go:build !linux && !darwin

package vpet

// controllingTTY has no portable answer here: no tty is reported.
func controllingTTY() string { return "" }
