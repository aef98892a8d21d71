package rawfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hookwire/hookwire/internal/rawfile"
)

func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if _, err := rawfile.Open(path, os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v, want fs.ErrNotExist", err)
	}
	f, err := rawfile.Open(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := rawfile.Open(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("O_EXCL on a file that is there: %v, want fs.ErrExist", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello" {
		t.Errorf("read back %q, %v", b, err)
	}
}
