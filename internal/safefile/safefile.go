// Package safefile opens, reads and writes the files hookwire touches
// outside its private state directory: agents' settings and their backups,
// the plugin files install writes, the debug log (PULSE_LOG), Coral's
// terminal logs. Those paths live where someone else may have been first: a
// repository the user opened (a project's .gemini/settings.json), or a
// directory other users can write (/tmp). A symbolic link planted there
// would turn a write into a write to any file of the user's
// (~/.ssh/authorized_keys), a read into a copy of one, and a FIFO would hang
// a hook that must never hang.
//
// So every function here
//   - never follows a final symbolic link (O_NOFOLLOW; a link is refused);
//   - never blocks on opening a FIFO (O_NONBLOCK, then the type is checked);
//   - writes nothing, and returns nothing read, before it has checked that
//     the file is a regular file owned by this user (its effective uid);
//   - replaces content only by renaming a new file, created exclusively in
//     the same directory, over the old name: a rename replaces a link, never
//     writes through it.
//
// On Windows there is no O_NOFOLLOW: a link or reparse point is refused
// after an Lstat (a race another user could win only in a directory they
// can write, which per-user profiles are not), and ownership is not checked.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// ErrUnsafe is what every refusal here matches (errors.Is).
var ErrUnsafe = errors.New("not a regular file of this user")

// An UnsafeError says why a path was refused, in words a person can act on.
type UnsafeError struct {
	Path string
	Why  string // "is a symbolic link to …", "is a FIFO", "belongs to uid 4242 (eve)"
}

func (e *UnsafeError) Error() string { return e.Path + " " + e.Why }

// Is makes every UnsafeError match ErrUnsafe.
func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

// Owner is the uid that owns fi; ok is false where it is not known
// (Windows). It is a variable so that tests can play another user, which
// needs privileges to do for real.
var Owner = owner

// Check refuses what is not a regular file owned by this user. path is only
// for the message.
func Check(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		why := "is a symbolic link"
		if to, err := os.Readlink(path); err == nil {
			why += " to " + to
		}
		return &UnsafeError{path, why}
	case m&fs.ModeNamedPipe != 0:
		return &UnsafeError{path, "is a named pipe (FIFO)"}
	case m.IsDir():
		return &UnsafeError{path, "is a directory"}
	case !m.IsRegular():
		return &UnsafeError{path, fmt.Sprintf("is not a regular file (%v)", m.Type())}
	}
	if uid, ok := Owner(fi); ok && uid != os.Geteuid() {
		return &UnsafeError{path, "belongs to " + UserName(uid) + ", not to you"}
	}
	return nil
}

// UserName is "uid N (name)", or "uid N" for a uid without an account.
func UserName(uid int) string {
	s := "uid " + strconv.Itoa(uid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		s += " (" + u.Username + ")"
	}
	return s
}

// Lcheck looks at path without following it: a missing path is (nil, nil),
// anything but a regular file of ours is an *UnsafeError.
func Lcheck(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := Check(path, fi); err != nil {
		return nil, err
	}
	return fi, nil
}

// Open opens path as os.OpenFile does, plus the flags that keep it from
// following a final link or blocking on a FIFO, and returns the file only
// once it has checked it is a regular file of ours.
func Open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := precheck(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		// ELOOP (Linux, macOS) or EMLINK (FreeBSD) for a link, ENXIO for
		// a FIFO without a reader, EISDIR: say what is there instead.
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, Check(path, fi)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = Check(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenAppend opens an existing file for appending, never creating it.
func OpenAppend(path string) (*os.File, error) {
	return Open(path, os.O_WRONLY|os.O_APPEND, 0)
}

// OpenLog opens a log for appending, creating it (mode 0600) if missing.
func OpenLog(path string) (*os.File, error) {
	return Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}

// ReadFile reads a whole file. A missing file is an error matching
// fs.ErrNotExist, as os.ReadFile's.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// WriteFile replaces path's content with data, atomically: a new file with
// mode perm, created exclusively beside it, renamed over it. What is at
// path now must be a regular file of ours, or nothing.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if _, err := Lcheck(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp") // O_EXCL
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Chmod(perm), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
