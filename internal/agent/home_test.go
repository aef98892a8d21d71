package agent

import (
	"runtime"
	"testing"
)

// TestUserHome: on Windows the home is the user's profile, which Windows
// sets, not HOME, which it does not (issue 39: setup looked for Trail Boss's
// and Coral's data relative to the current directory).
func TestUserHome(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "USERPROFILE": `C:\Users\u`}
	want := "/home/u"
	if runtime.GOOS == "windows" {
		want = `C:\Users\u`
	}
	if got := UserHome(func(k string) string { return env[k] }); got != want {
		t.Errorf("UserHome = %q, want %q", got, want)
	}
}
