package coucou

import (
	"io/fs"
	"os"
	"runtime"

	"github.com/hookwire/hookwire/internal/install"
)

// Surface is what nb-hook installs, what its doctor checks of its target,
// and how hookwire setup finds Coucou: for a binary that serves several
// surfaces (cmd/hookwire).
func Surface() install.Surface {
	return install.Surface{Name: "nb-hook", Title: "Coucou", Spec: hooks, Check: socketCheck, Find: find}
}

// find: Coucou is there when its socket is (the app makes it at start; on
// Windows, its pipe).
func find(getenv func(string) string) install.Presence {
	path := SocketPath(Where{GOOS: runtime.GOOS, Getenv: getenv, Exists: exists,
		UID: os.Getuid(), TmpDir: os.TempDir(), SID: userSID()})
	if runtime.GOOS == "windows" {
		if _, err := os.Stat(path); err == nil {
			return install.Presence{Found: true, Why: "its pipe " + path}
		}
		return install.Presence{Why: "no pipe " + path + " (is Coucou running?)"}
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		return install.Presence{Found: true, Why: "its socket " + path}
	}
	return install.Presence{Why: "no socket " + path + " (is Coucou running? else " + EnvSocket + ")"}
}
