package coral

import (
	"context"
	"os"
	"time"

	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// Surface is what coral-pulse installs, what its doctor checks of its
// target, and how hookwire setup finds Coral: for a binary that serves
// several surfaces (cmd/hookwire).
func Surface() install.Surface {
	return install.Surface{Name: "coral-pulse", Title: "Coral", Spec: hooks, Check: sessionCheck, Find: find,
		NoWindows: "Coral lives in tmux panes (Linux, macOS, WSL); set CORAL_URL to a Coral server you reach"}
}

// find: Coral is there when its server answers (CORAL_URL, CORAL_PORT, else
// its default port), or its data directory exists (CORAL_DATA_DIR,
// CORAL_DIR, else ~/.coral).
func find(getenv func(string) string) install.Presence {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	base, _ := Locate(ctx, getenv, Session{})
	if _, err := (httpsend.Request{Method: "GET", URL: base + "/", MaxReply: -1}).Do(ctx); err == nil {
		return install.Presence{Found: true, Why: "its server answers at " + text.Redact(base)}
	}
	dir := DataDir(getenv)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return install.Presence{Found: true, Why: "its data directory " + dir}
	}
	return install.Presence{Why: "no server at " + text.Redact(base) + ", no " + dir}
}
