package warm

import "testing"

// The client's state directory, from the environment as /proc/self/environ
// holds it: the values stated by hand.
func TestStateRoot(t *testing.T) {
	for _, c := range []struct{ environ, want string }{
		{"HOME=/h\x00XDG_RUNTIME_DIR=/run/user/7/\x00TMPDIR=/t\x00", "/run/user/7/hookwire/warm"},
		{"XDG_RUNTIME_DIR_X=/no\x00TMPDIR=/var/tmp\x00", "/var/tmp/hookwire-7/warm"},
		{"XDG_RUNTIME_DIR=relative\x00TMPDIR=\x00", "/tmp/hookwire-7/warm"},
		{"TMPDIR=/t/\x00XDG_RUNTIME_DIR=\x00", "/t/hookwire-7/warm"},
		{"", "/tmp/hookwire-7/warm"},
		{"XDG_RUNTIME_DIR=/r", "/tmp/hookwire-7/warm"}, // not ended by a NUL: not read
	} {
		if got := stateRoot([]byte(c.environ), 7); got != c.want {
			t.Errorf("%q: %s, want %s", c.environ, got, c.want)
		}
	}
}
