package vpet

import "testing"

func TestTTYFromStat(t *testing.T) {
	pts7 := uint64(136<<8 | 7)
	pts300 := uint64(137<<8 | 44)
	devs := map[string]uint64{"/dev/pts/7": pts7, "/dev/pts/300": pts300, "/dev/tty2": 4<<8 | 2}
	rdev := func(p string) (uint64, bool) { d, ok := devs[p]; return d, ok }
	for _, tc := range []struct{ stat, want string }{
		{"4242 (claude) S 4000 4242 4000 34823 4242 4194304", "/dev/pts/7"},
		{"4242 (a (weird) name) S 4000 4242 4000 34823 4242", "/dev/pts/7"}, // the command may hold ") "
		{"4242 (sh) S 1 4242 4242 35116 4242", "/dev/pts/300"},
		{"4242 (getty) S 1 4242 4242 1026 4242", "/dev/tty2"},
		{"4242 (hook) S 1 4242 4242 0 -1", ""},     // no controlling terminal
		{"4242 (hook) S 1 4242 4242 34824 -1", ""}, // /dev/pts/8 is not this namespace's
		{"4242 (hook) S 1 4242 4242 1088 -1", ""},  // a serial line: not named
		{"garbage", ""},
	} {
		if got := ttyFromStat(tc.stat, rdev); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.stat, got, tc.want)
		}
	}
}
