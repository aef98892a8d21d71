package trailboss

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// Surface is what trailboss-hook installs, what its doctor checks of its
// target, and how hookwire setup finds Trail Boss: for a binary that
// serves several surfaces (cmd/hookwire).
func Surface() install.Surface {
	return install.Surface{Name: Name, Title: "Trail Boss", Spec: hooks, Check: daemonCheck, Find: find,
		NoWindows: "Trail Boss's daemon runs beside tmux (Linux, macOS, WSL); set TRAILBOSS_URL to a daemon you reach"}
}

// find: Trail Boss is there when its daemon answers /status, or its
// database directory exists (TRAILBOSS_DATA_DIR, else
// ~/.local/share/trailboss), or its commands are on PATH (the daemon is
// started by trailboss-start).
func find(getenv func(string) string) install.Presence {
	status := DefaultURL + "/status"
	endpoint, err := Endpoint(getenv, false)
	if err == nil {
		status = strings.TrimSuffix(endpoint, EventPath) + "/status"
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if reply, err := (httpsend.Request{Method: "GET", URL: status, MaxReply: 4 << 10}).Do(ctx); err == nil && reply.Status == httpsend.StatusOK {
			return install.Presence{Found: true, Why: "its daemon answers at " + text.Redact(status)}
		}
	}
	dir := getenv("TRAILBOSS_DATA_DIR")
	if dir == "" {
		dir = filepath.Join(agent.UserHome(getenv), ".local", "share", "trailboss")
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return install.Presence{Found: true, Why: "its data directory " + dir}
	}
	for _, c := range []string{"trailboss-start", "trailboss"} {
		if p, err := exec.LookPath(c); err == nil {
			return install.Presence{Found: true, Why: p}
		}
	}
	return install.Presence{Why: "no daemon at " + text.Redact(status) + ", no " + dir + ", no trailboss on PATH"}
}
