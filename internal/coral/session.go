package coral

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
)

// Environment variables.
const (
	// EnvSession is the Coral session's name, `<type>-<uuid>`. Coral puts it
	// in the environment of the agents it launches (Claude's --settings env,
	// Codex's and Gemini's launch command, the tmux session's environment).
	EnvSession = "CORAL_SESSION_NAME"
	// EnvPane is tmux's pane id; the pane's session is named like EnvSession.
	EnvPane = "TMUX_PANE"
)

// Session is one session Coral launched: tmux session `<type>-<uuid>`, log
// `<type>_coral_<uuid>.log`.
type Session struct {
	Name string // <type>-<uuid>
	Type string // claude, codex, gemini, …
	UUID string
	// From says how it was found: CORAL_SESSION_NAME or tmux.
	From string
}

// ParseSession reads a Coral session name. Coral's pattern is
// `(?i)^(\w+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`;
// this is the same test without compiling a regexp on every hook call.
func ParseSession(name string) (Session, bool) {
	const uuidLen = 36
	if len(name) < uuidLen+2 || name[len(name)-uuidLen-1] != '-' {
		return Session{}, false
	}
	typ, uuid := name[:len(name)-uuidLen-1], name[len(name)-uuidLen:]
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return Session{}, false
		}
	}
	for i := 0; i < len(uuid); i++ {
		c := uuid[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return Session{}, false
			}
		} else if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return Session{}, false
		}
	}
	return Session{Name: name, Type: typ, UUID: uuid}, true
}

// tmuxBudget bounds asking tmux for the pane's session: a live server
// answers in a few milliseconds.
const tmuxBudget = 500 * time.Millisecond

// Finder locates the Coral session a hook runs in, and its log.
type Finder struct {
	Getenv func(string) string
	// Dirs are where Coral's logs may be, in order (LogDirs).
	Dirs []string
	// Notef records what a person debugging should know.
	Notef func(format string, args ...any)
}

// LogDirs are where Coral writes its logs: Go's os.TempDir() as Coral itself
// computes it ($TMPDIR, else /tmp), then /tmp, as Coral's legacy
// find_log_path also looks there.
func LogDirs(getenv func(string) string) []string {
	if runtime.GOOS == "windows" {
		return []string{os.TempDir()}
	}
	dir := getenv("TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	dir = filepath.Clean(dir)
	if dir == "/tmp" {
		return []string{dir}
	}
	return []string{dir, "/tmp"}
}

// ErrNotCoral says the hook does not run in a session Coral launched.
var ErrNotCoral = errors.New("not in a Coral session")

// Session finds the Coral session: CORAL_SESSION_NAME, else the name of the
// tmux session that holds TMUX_PANE. It costs nothing outside tmux, and
// inside tmux runs tmux only if some Coral log exists at all.
func (f Finder) Session(ctx context.Context) (Session, error) {
	if name := strings.TrimSpace(f.Getenv(EnvSession)); name != "" {
		if s, ok := ParseSession(name); ok {
			s.From = EnvSession
			return s, nil
		}
		f.Notef("%s=%q is not a Coral session name (<type>-<uuid>): trying tmux", EnvSession, name)
	}
	pane := f.Getenv(EnvPane)
	if pane == "" {
		return Session{}, fmt.Errorf("%w: no %s and not in tmux", ErrNotCoral, EnvSession)
	}
	if !paneID(pane) {
		return Session{}, fmt.Errorf("%w: %s=%q is not a pane id", ErrNotCoral, EnvPane, pane)
	}
	if !f.anyLog() {
		return Session{}, fmt.Errorf("%w: no Coral log in %s", ErrNotCoral, strings.Join(f.Dirs, " or "))
	}
	name, err := tmuxSession(ctx, pane)
	if err != nil {
		return Session{}, fmt.Errorf("%w: asking tmux for pane %s's session: %v", ErrNotCoral, pane, err)
	}
	s, ok := ParseSession(name)
	if !ok {
		return Session{}, fmt.Errorf("%w: tmux session %q is not named <type>-<uuid>", ErrNotCoral, name)
	}
	s.From = "tmux"
	return s, nil
}

// paneID accepts tmux's pane ids, %N, and nothing that tmux could read as
// another kind of target.
func paneID(s string) bool {
	if len(s) < 2 || s[0] != '%' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// tmuxSession asks the tmux server (found through $TMUX, as tmux itself
// does) for the name of the session holding pane. The command is a query,
// not a delivery: it runs in a dry run too.
func tmuxSession(ctx context.Context, pane string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tmuxBudget)
	defer cancel()
	r, err := transport.Command{Argv: []string{"tmux", "display-message", "-p", "-t", pane, "#{session_name}"}}.Do(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(r.Body)), nil
}

// LogName is the log's file name for a session.
func (s Session) LogName() string { return s.Type + "_coral_" + s.UUID + ".log" }

// Log finds the session's log: <type>_coral_<uuid>.log in each directory,
// then any *_coral_<uuid>.log (the agent type in the name may differ from
// the tmux session's, as it may in Coral's legacy code).
func (f Finder) Log(s Session) (string, error) {
	for _, dir := range f.Dirs {
		p := filepath.Join(dir, s.LogName())
		if exists(p) {
			return p, nil
		}
	}
	suffix := "_coral_" + strings.ToLower(s.UUID) + ".log"
	for _, dir := range f.Dirs {
		var found string
		each(dir, func(name string) bool {
			if strings.HasSuffix(strings.ToLower(name), suffix) && exists(filepath.Join(dir, name)) {
				found = filepath.Join(dir, name)
				return false
			}
			return true
		})
		if found != "" {
			return found, nil
		}
	}
	return "", fmt.Errorf("no log %s (nor *%s) in %s", s.LogName(), suffix, strings.Join(f.Dirs, " or "))
}

// anyLog reports whether any directory holds a Coral log at all.
func (f Finder) anyLog() bool {
	for _, dir := range f.Dirs {
		found := false
		each(dir, func(name string) bool {
			found = strings.Contains(name, "_coral_") && strings.HasSuffix(name, ".log")
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// exists is true for anything but a directory; what it really is, the
// append checks on the open descriptor.
func exists(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && !fi.IsDir()
}

// each calls f with the directory's entry names, in batches, until f
// returns false. An unreadable directory has no entries.
func each(dir string, f func(name string) bool) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(256)
		for _, n := range names {
			if !f(n) {
				return
			}
		}
		if err != nil { // io.EOF at the end
			return
		}
	}
}
