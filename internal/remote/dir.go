package remote

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/state"
)

// EnvStateHome is where the relay directory lives: $XDG_STATE_HOME/hookwire/relay,
// else ~/.local/state/hookwire/relay. Not $XDG_RUNTIME_DIR: over ssh without
// PAM there is none, and the hooks (run by the agent) and the relay (run by
// the desktop's ssh) must find the same directory.
const EnvStateHome = "XDG_STATE_HOME"

// The relay directory's files.
const (
	spoolDir   = "spool"      // <%010d segment>.jsonl, appended by the hooks
	keptFile   = "kept.jsonl" // the keep lines of dropped segments, replayed first
	ackedFile  = "acked"      // the last Seq the desktop acked, in decimal
	lockFile   = "lock"       // the flock every change to the spool holds
	socketFile = "relay.sock" // the relay's socket: pokes and asks
	segmentExt = ".jsonl"     // a segment's suffix
	keptMax    = 1 << 20      // kept.jsonl's bound: thousands of sessions' starts and ends
	segmentMax = 256 << 10    // a segment rotates past this
	spoolMax   = 4 << 20      // all segments together; past it the oldest goes
	maxSegs    = spoolMax / segmentMax
)

// Dir is the relay directory for this environment ("" without a home).
func Dir(getenv func(string) string) string {
	if d := getenv(EnvStateHome); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hookwire", "relay")
	}
	if home := getenv("HOME"); home != "" && filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "hookwire", "relay")
	}
	return ""
}

// ErrUnsupported: the relay needs Unix sockets with peer credentials and
// flock; on Windows an agent's machine is WSL, which is Linux.
var ErrUnsupported = errors.New("the relay runs on Linux and macOS (on Windows, in WSL)")

// SetUp reports whether a relay is set up at dir: it exists, a real
// directory of ours. One lstat. A directory that is something else (a link,
// another user's) is an error: nothing is handed to it.
func SetUp(dir string) (bool, error) {
	if dir == "" || runtime.GOOS == "windows" {
		return false, nil
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return false, fmt.Errorf("%w: %s is not a directory (a symlink?)", state.ErrUnsafe, dir)
	}
	if uid, ok := safefile.Owner(fi); ok && uid != os.Getuid() {
		return false, fmt.Errorf("%w: %s belongs to %s", state.ErrUnsafe, dir, safefile.UserName(uid))
	}
	return true, nil
}

// Create makes the relay directory and its spool (0700, the parents as
// needed), refusing one that is a link or another user's.
func Create(dir string) error {
	if runtime.GOOS == "windows" {
		return ErrUnsupported
	}
	if dir == "" {
		return errors.New("no relay directory: neither XDG_STATE_HOME nor HOME is set")
	}
	parent := filepath.Dir(dir) // …/hookwire
	if err := os.MkdirAll(filepath.Dir(parent), 0o700); err != nil {
		return err
	}
	for _, d := range []string{parent, dir, filepath.Join(dir, spoolDir)} {
		if err := state.SafeDir(d); err != nil {
			return err
		}
	}
	return nil
}

// SocketPath is the relay's socket in dir.
func SocketPath(dir string) string { return filepath.Join(dir, socketFile) }

// spoolID is the relay directory's spool's name (relay/id), made with the
// first relay: random, so that a directory made again has another; "" if
// it cannot be read or made (the desktop then cannot tell a replay of what
// it carried out from a new spool, and carries out both).
func spoolID(dir string) string {
	path := filepath.Join(dir, idFile)
	if b, err := safefile.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); len(id) == 2*idBytes {
			return id
		}
		return "" // not one of ours: left as it is
	}
	var raw [idBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return ""
	}
	id := hex.EncodeToString(raw[:])
	f, err := safefile.Open(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "" // another relay made it at the same moment: the next hello has it
	}
	defer f.Close()
	if _, err := f.WriteString(id); err != nil {
		return ""
	}
	return id
}

const (
	idFile  = "id"
	idBytes = 8
)
