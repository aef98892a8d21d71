package pulse

import "testing"

// The path noctalia's client and server both work out
// (src/ipc/ipc_client.cpp, resolveSocketPath): an empty variable counts as
// unset.
func TestSocket(t *testing.T) {
	for _, c := range []struct {
		runtime, display, want string
	}{
		{"/run/user/1000", "wayland-1", "/run/user/1000/noctalia-wayland-1.sock"},
		{"/run/user/1000", "", "/run/user/1000/noctalia-wayland-0.sock"},
		{"", "wayland-1", "/tmp/noctalia-wayland-1.sock"},
		{"", "", "/tmp/noctalia-wayland-0.sock"},
	} {
		env := map[string]string{"XDG_RUNTIME_DIR": c.runtime, "WAYLAND_DISPLAY": c.display}
		if got := Socket(func(k string) string { return env[k] }); got != c.want {
			t.Errorf("XDG_RUNTIME_DIR=%q WAYLAND_DISPLAY=%q: %s, want %s", c.runtime, c.display, got, c.want)
		}
	}
}
