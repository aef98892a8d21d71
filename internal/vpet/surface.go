package vpet

import (
	"io/fs"
	"os"
	"runtime"

	"github.com/hookwire/hookwire/internal/install"
)

// Surface is what vpet-notify installs, what its doctor checks of its
// target, and how hookwire setup finds the pet: for a binary that serves
// several surfaces (cmd/hookwire).
func Surface() install.Surface {
	return install.Surface{Name: "vpet-notify", Title: "VPet", Spec: hooks, Check: petCheck, Find: find,
		NoWindows: "VPet's notify sink serves its macOS app; on Windows 10 and later set VPET_NOTIFY_SOCKET to a sink's Unix socket"}
}

// find: the pet is there when its notify sink's socket is, or its token
// file (the sink was set up, and is not running now).
func find(getenv func(string) string) install.Presence {
	socket := SocketPath(getenv, runtime.GOOS, "")
	if socket == "" {
		return install.Presence{Why: "nowhere to look for its socket (" + EnvSocket + ")"}
	}
	if fi, err := os.Stat(socket); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		return install.Presence{Found: true, Why: "its socket " + socket}
	}
	if token := TokenFile(getenv, "", socket); token != "" {
		if _, err := os.Stat(token); err == nil {
			return install.Presence{Found: true, Why: "its token file " + token}
		}
	}
	return install.Presence{Why: "no socket " + socket + ", no token file beside it"}
}
