//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// plant makes, in a fresh non-sticky directory (so that the kernel's
// fs.protected_symlinks, whatever its value, plays no part), each thing a
// hostile repository or another user can leave at a path we write: a link
// to a file of the victim's, a FIFO, a directory. It returns the victim.
func plant(t *testing.T) (dir, victim string) {
	dir = t.TempDir()
	victim = filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	return dir, victim
}

// Every way in refuses every planted thing, promptly, and the victim is
// untouched.
func TestRefusesPlanted(t *testing.T) {
	dir, victim := plant(t)
	ways := map[string]func(string) error{
		"OpenAppend": func(p string) error { f, err := OpenAppend(p); closeIt(f); return err },
		"OpenLog":    func(p string) error { f, err := OpenLog(p); closeIt(f); return err },
		"ReadFile":   func(p string) error { _, err := ReadFile(p); return err },
		"WriteFile":  func(p string) error { return WriteFile(p, []byte("evil\n"), 0o600) },
		"Lcheck":     func(p string) error { _, err := Lcheck(p); return err },
	}
	for name, way := range ways {
		for _, planted := range []string{"link", "fifo", "dir"} {
			start := time.Now()
			err := way(filepath.Join(dir, planted))
			if !errors.Is(err, ErrUnsafe) {
				t.Errorf("%s(%s): err %v, want a refusal", name, planted, err)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("%s(%s): took %v", name, planted, took)
			}
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	_, err := ReadFile(filepath.Join(dir, "link"))
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link to "+victim) {
		t.Errorf("the refusal does not say why: %v", err)
	}
}

func closeIt(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// A FIFO someone holds open for reading opens without blocking, and is
// still refused before a byte is written.
func TestRefusesFIFOWithReader(t *testing.T) {
	dir, _ := plant(t)
	fifo := filepath.Join(dir, "fifo")
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f, err := OpenLog(fifo); !errors.Is(err, ErrUnsafe) {
		closeIt(f)
		t.Errorf("err %v, want ErrUnsafe", err)
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		t.Errorf("the fifo got %d bytes", n)
	}
}

// A file of another user (one they made 0666 in /tmp, to read what we
// write) is refused.
func TestRefusesAnotherUsersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	os.WriteFile(path, nil, 0o666)
	saved := Owner
	defer func() { Owner = saved }()
	Owner = func(fs.FileInfo) (int, bool) { return os.Geteuid() + 1, true }
	for name, err := range map[string]error{
		"OpenLog":   func() error { f, err := OpenLog(path); closeIt(f); return err }(),
		"ReadFile":  func() error { _, err := ReadFile(path); return err }(),
		"WriteFile": WriteFile(path, []byte("x"), 0o600),
	} {
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "not to you") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// WriteFile replaces a file of ours by a new one with the mode asked for,
// and leaves no temp file.
func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := WriteFile(path, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Errorf("read %q, %v", b, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
