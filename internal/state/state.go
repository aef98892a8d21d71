// Package state keeps small per-user, per-session files between hook
// invocations: token counters, open runs, a spool of undelivered events.
//
// The directory is private to the user ($XDG_RUNTIME_DIR/hookwire, else
// hookwire-<uid> in the temp dir (on Windows hookwire-<user SID>), else, when another user took that name,
// hookwire in the user's cache directory), created 0700 and refused if it is a
// symlink or belongs to someone else: another user must not be able to plant
// or read our state. Writes are atomic (a uniquely named temp file renamed
// into place), read-modify-write cycles hold an advisory lock, and files that
// a crashed or killed session left behind are collected after a while.
package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookwire/hookwire/internal/rawfile"
	"github.com/hookwire/hookwire/internal/safefile"
)

// Store is one binary's corner of the state directory.
type Store struct {
	dir string
	// readOnly is a dry run's store: it reads what is there and changes
	// nothing on disk, not even a directory or a lock file.
	readOnly bool
}

// ErrUnsafe is returned for a state directory that another user could tamper with.
var ErrUnsafe = errors.New("unsafe state directory")

// Root returns the per-user state directory for this environment, without
// creating it: $XDG_RUNTIME_DIR/hookwire, else hookwire-<uid> in the temp
// directory, unless another user took that name first (Squatted), when it
// is hookwire in the user's cache directory, which nobody else can create.
func Root(getenv func(string) string) string {
	dir, _ := rootDir(getenv)
	return dir
}

// rootDir is Root, and whether it is in the cache directory.
func rootDir(getenv func(string) string) (dir string, inCache bool) {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hookwire"), false
	}
	tmp := TempRoot()
	if _, taken := Squatted(tmp); taken {
		if d := cacheDir(getenv); d != "" {
			return filepath.Join(d, "hookwire"), true
		}
	}
	return tmp, false
}

// TempRoot is the state directory's predictable name in the temp
// directory, used without $XDG_RUNTIME_DIR.
func TempRoot() string {
	return filepath.Join(os.TempDir(), "hookwire-"+userTag())
}

// Squatted reports whether dir exists and is not a directory of ours (a
// symlink, a file, another user's directory): in a temp directory that every
// user can write, another user can create our predictable name first, and
// so refuse us our state for as long as they keep it. by is the owner, for
// doctor to name; -1 when not known.
func Squatted(dir string) (by int, taken bool) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return -1, false
	}
	uid, known := safefile.Owner(fi)
	if !known {
		uid = -1
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return uid, true
	}
	_, other := otherOwner(dir, fi)
	return uid, other
}

// cacheDir is the user's cache directory (os.UserCacheDir, read from
// getenv), or "" without one.
func cacheDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		return d
	}
	home := getenv("HOME")
	if runtime.GOOS == "windows" {
		home = getenv("LocalAppData")
		if home != "" && filepath.IsAbs(home) {
			return home
		}
		return ""
	}
	if home == "" || !filepath.IsAbs(home) {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Caches")
	}
	return filepath.Join(home, ".cache")
}

// Open returns the store for name (a binary), creating and checking the
// directories on the way.
func Open(getenv func(string) string, name string) (*Store, error) {
	root, inCache := rootDir(getenv)
	if inCache {
		os.MkdirAll(filepath.Dir(root), 0o700) // a new account may have no ~/.cache yet
	}
	if err := safeDir(root); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, name)
	if err := safeDir(dir); err != nil {
		return nil, err
	}
	return &Store{dir: dir}, nil
}

// OpenReadOnly returns the store for name as Open does, for a dry run
// (PULSE_DRYRUN): it reads what earlier runs saved, and its Write, Remove, GC
// and Lock change nothing on disk. A missing directory reads as empty.
func OpenReadOnly(getenv func(string) string, name string) (*Store, error) {
	root := Root(getenv)
	dir := filepath.Join(root, name)
	for _, d := range []string{root, dir} {
		fi, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
			return nil, fmt.Errorf("%w: %s is not a directory (a symlink?)", ErrUnsafe, d)
		}
		if who, other := otherOwner(d, fi); other {
			return nil, fmt.Errorf("%w: %s belongs to %s", ErrUnsafe, d, who)
		}
	}
	return &Store{dir: dir, readOnly: true}, nil
}

// ReadOnly reports a dry run's store.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// SafeDir makes dir (mode 0700) if it is missing, and checks that it is a
// real directory that we own and nobody else can write, as the state
// directory is: for other per-user directories (the relay's, internal/remote).
func SafeDir(dir string) error { return safeDir(dir) }

// safeDir makes dir (mode 0700) if it is missing, and checks that it is a
// real directory that we own and nobody else can write. A directory of ours
// that is too open is tightened.
//
// A hook opens a store for each surface, in the same root: the common case,
// a directory that is there, costs one Lstat.
func safeDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (a symlink?)", ErrUnsafe, dir)
	}
	if who, other := otherOwner(dir, fi); other {
		return fmt.Errorf("%w: %s belongs to %s", ErrUnsafe, dir, who)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%w: %s is mode %v: %v", ErrUnsafe, dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// ownUID is this process's uid, asked once: a system call each time on
// Linux, and a hook checks a directory for each surface.
var ownUID = sync.OnceValue(os.Getuid)

// Key turns a session id (or any name) into a safe file name: the id itself
// when it is short and plain, else a readable prefix and a hash, so that two
// different ids never share a file.
func Key(id string) string {
	plain := len(id) > 0 && len(id) <= 64
	for i := 0; plain && i < len(id); i++ {
		c := id[i]
		plain = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
	}
	if plain {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	prefix := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, id)
	if len(prefix) > 32 {
		prefix = prefix[:32]
	}
	return prefix + "~" + hex.EncodeToString(sum[:8])
}

func (s *Store) path(name string) string { return filepath.Join(s.dir, name) }

// Read returns a file's contents; a missing file is (nil, nil).
func (s *Store) Read(name string) ([]byte, error) {
	f, err := rawfile.Open(s.path(name), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// readAll reads f to its end, as os.ReadFile does: in one read when the
// file's size is right.
func readAll(f *os.File) ([]byte, error) {
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() < 1<<30 {
		size = max(size, int(fi.Size())+1) // +1: the read that sees the end
	}
	b := make([]byte, 0, size)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		} else if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grown: the file was written since
		}
	}
}

// Write replaces a file atomically: readers see the old or the new content,
// never a mix, and concurrent writers never share a temp file.
func (s *Store) Write(name string, data []byte) error {
	if s.readOnly {
		return nil
	}
	f, err := s.createTemp(name)
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, s.path(name)); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// createTemp makes a new file beside name's, as os.CreateTemp does
// (".name.<random>.tmp", exclusively, 0600), outside the runtime's poller.
func (s *Store) createTemp(name string) (*os.File, error) {
	for range 10000 {
		tmp := s.path("." + name + "." + strconv.FormatUint(uint64(rand.Uint32()), 10) + ".tmp")
		f, err := rawfile.Open(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &os.PathError{Op: "createtemp", Path: s.path("." + name + ".*.tmp"), Err: fs.ErrExist}
}

// Remove deletes a file; a missing file is fine. Its lock file stays: the
// caller may hold it, and others may be waiting on it (see Lock).
func (s *Store) Remove(name string) error {
	if s.readOnly {
		return nil
	}
	err := os.Remove(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return err
}

// Lock takes the advisory lock for name, waiting until ctx's deadline. The
// returned function releases it.
//
// A lock file is unlinked only by GC, and only while GC holds it. A process
// that was waiting on the unlinked file then gets a lock that guards
// nothing, while a newcomer locks a new file: so a lock, once taken, is
// checked to still be the file at its path, and taken again if not. The lock
// can never be held twice at once.
func (s *Store) Lock(ctx context.Context, name string) (release func(), err error) {
	if s.readOnly {
		return func() {}, nil // nothing is written: nothing to guard
	}
	path := s.path(name + ".lock")
	for {
		f, err := rawfile.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := waitLock(ctx, f); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if current(f, path) {
			return func() { Unlock(f); f.Close() }, nil
		}
		Unlock(f) // GC unlinked it while we waited: take the new one
		f.Close()
	}
}

// Hold takes name's lock (Lock's) without waiting, and returns the file
// that holds it: the lock lasts until every copy of the descriptor is
// closed or one of them unlocks it, so a process it is handed to (a
// courier) holds it after this one has exited. ok is false when another
// holds it.
func (s *Store) Hold(name string) (f *os.File, ok bool, err error) {
	path := s.path(name + ".lock")
	for range 3 {
		f, err := rawfile.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, false, err
		}
		if ok, err := TryLock(f); err != nil || !ok {
			f.Close()
			return nil, false, err
		}
		if current(f, path) {
			return f, true, nil
		}
		Unlock(f) // GC unlinked it: take the new one
		f.Close()
	}
	return nil, false, nil
}

// waitLock takes f's lock, polling until ctx ends.
func waitLock(ctx context.Context, f *os.File) error {
	for {
		ok, err := TryLock(f)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// current reports whether f is still the file at path.
func current(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(held, now)
}

// GC removes files not modified for maxAge: the state of sessions that ended
// without a session end (a crash, a kill, an agent that sends none).
func (s *Store) GC(maxAge time.Duration) (removed int) {
	if s.readOnly {
		return 0
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	cutoff := time.Now().Add(-maxAge)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff) {
			if s.remove(e.Name()) {
				removed++
			}
		}
	}
	return removed
}

// remove deletes a file GC found old. A lock file goes only if nobody holds
// it, and while GC does (see Lock): one that is held is in use.
func (s *Store) remove(name string) bool {
	if !strings.HasSuffix(name, ".lock") {
		return os.Remove(s.path(name)) == nil
	}
	f, err := os.OpenFile(s.path(name), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if ok, err := TryLock(f); !ok || err != nil {
		return false
	}
	defer Unlock(f)
	return current(f, s.path(name)) && os.Remove(s.path(name)) == nil
}

// tidyStamp is the file whose mtime says when Tidy last collected.
const tidyStamp = ".tidy"

// Tidy is GC at most once every interval for the store: a session start
// calls it, and reading a directory of a few thousand sessions' files costs
// milliseconds that the agent would wait for on every session start. One
// stat of a stamp file is all the other calls cost.
func (s *Store) Tidy(maxAge, every time.Duration) (removed int) {
	if s.readOnly {
		return 0
	}
	stamp := s.path(tidyStamp)
	now := time.Now()
	if fi, err := os.Lstat(stamp); err == nil && now.Sub(fi.ModTime()) < every && fi.ModTime().Before(now.Add(time.Minute)) {
		return 0
	}
	if err := os.Chtimes(stamp, now, now); err != nil {
		f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return 0 // a directory we cannot write to has nothing of ours to collect
		}
		f.Close()
	}
	return s.GC(maxAge)
}
