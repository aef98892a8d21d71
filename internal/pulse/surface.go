package pulse

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/install"
)

// ClaudeSurface is what pulse-claude installs, what its doctor checks of
// its target, and how hookwire setup finds noctalia's Pulse: for a binary
// that serves several surfaces (cmd/hookwire).
func ClaudeSurface() install.Surface {
	return install.Surface{Name: "pulse-claude", Title: "Pulse", Spec: claudeHooks, Check: noctaliaCheck, Find: find,
		NoWindows: "Pulse is a bar of noctalia, a Linux (Wayland) shell"}
}

// find: Pulse is there when noctalia is (on PATH, or its socket) and the
// claude-companion plugin is installed: in noctalia's plugin directory
// ($XDG_DATA_HOME/noctalia/plugins, else ~/.local/share/noctalia/plugins),
// or listed by a running noctalia.
func find(getenv func(string) string) install.Presence {
	where, err := exec.LookPath("noctalia")
	if err != nil {
		sock := Socket(getenv)
		if !socketThere(sock) {
			return install.Presence{Why: "noctalia is not on PATH, no socket " + sock}
		}
		where = "noctalia's socket " + sock
	}
	author, _, _ := strings.Cut(Target(getenv), ":") // lowcache/claude-companion
	plugin := author[strings.LastIndex(author, "/")+1:]
	data := getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(data) {
		data = filepath.Join(getenv("HOME"), ".local", "share")
	}
	dir := filepath.Join(data, "noctalia", "plugins", plugin)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return install.Presence{Found: true, Why: where + " and its plugin " + dir}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if list, _, _ := Ask(ctx, getenv, "plugins", "list"); strings.Contains(list, author) {
		return install.Presence{Found: true, Why: where + ", which lists the plugin " + author}
	}
	return install.Presence{Why: where + " is there, but not the " + plugin + " plugin (not in " + dir + ", not listed by noctalia)"}
}
