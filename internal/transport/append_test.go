//go:build unix

package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
)

func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude_coral_x.log")
	os.WriteFile(path, []byte("partial line"), 0o600)
	a := Append{Path: path, Data: []byte("\r\n||PULSE:STATUS Reading a.go||\r\n")}
	if _, err := a.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "partial line\r\n||PULSE:STATUS Reading a.go||\r\n"; string(b) != want {
		t.Errorf("file %q, want %q", b, want)
	}
	if got, want := a.Summary(), "append "+path+" (33 bytes)"; got != want {
		t.Errorf("Summary %q, want %q", got, want)
	}
	if got, want := a.Describe(), "append "+path+"\n"+`"\r\n||PULSE:STATUS Reading a.go||\r\n"`; got != want {
		t.Errorf("Describe %q, want %q", got, want)
	}
}

// A log another user owns (planted in /tmp under a name Coral would use) is
// refused and left as it was.
func TestAppendRefusesAnotherUsersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude_coral_x.log")
	os.WriteFile(path, []byte("keep"), 0o600)
	saved := safefile.Owner
	defer func() { safefile.Owner = saved }()
	safefile.Owner = func(fs.FileInfo) (int, bool) { return os.Getuid() + 1, true }
	_, err := Append{Path: path, Data: []byte("x")}.Do(context.Background())
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("err %v, want ErrNotRegular", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Errorf("file %q, want it untouched", b)
	}
}

// A missing file stays missing.
func TestAppendNeverCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.log")
	_, err := Append{Path: path, Data: []byte("x")}.Do(context.Background())
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err %v, want ErrNotExist", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file was created")
	}
}

// What a neighbour can plant at a predictable path in /tmp is refused at
// once, and nothing reaches the file it points to.
func TestAppendRefusesWhatIsNotAPlainFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link.log")
	os.Symlink(victim, link)
	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
	}{
		{link, ErrNotRegular}, // the open fails (ELOOP), and says why
		{fifo, ErrNotRegular}, // no reader: fails (ENXIO) instead of waiting for one
		{dir, ErrNotRegular},
	} {
		start := time.Now()
		_, err := Append{Path: c.path, Data: []byte("x")}.Do(context.Background())
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", filepath.Base(c.path), err, c.want)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: took %v", filepath.Base(c.path), took)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}

	// A FIFO with a reader opens, and is still refused before any write.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := (Append{Path: fifo, Data: []byte("x")}).Do(context.Background()); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo with a reader: err %v, want ErrNotRegular", err)
	}
	buf := make([]byte, 1)
	if n, _ := r.Read(buf); n != 0 {
		t.Errorf("the fifo got %d bytes", n)
	}
}

func TestAppendAfterDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	os.WriteFile(path, nil, 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Append{Path: path, Data: []byte("x")}).Do(ctx); !errors.Is(err, ErrDeadline) {
		t.Errorf("err %v", err)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("wrote %q after the deadline", b)
	}
}

// Many appenders and a noisy terminal writer on one file: every record
// lands whole, as the single write on an O_APPEND descriptor promises.
func TestAppendConcurrentWritesStayWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	os.WriteFile(path, nil, 0o600)
	var noise sync.WaitGroup
	noise.Go(func() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		chunk := bytes.Repeat([]byte("\x1b[2K\rnoise "), 40)
		for range 2000 {
			f.Write(chunk)
		}
	})
	var wg sync.WaitGroup
	const writers, each = 8, 50
	tail := bytes.Repeat([]byte("y"), 40)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				rec := fmt.Sprintf("\r\n||PULSE:STATUS w%d-%d %s||\r\n", w, i, tail)
				if _, err := (Append{Path: path, Data: []byte(rec)}).Do(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	noise.Wait()
	b, _ := os.ReadFile(path)
	seen := map[string]bool{}
	for _, piece := range bytes.Split(b, []byte("\r\n||PULSE:STATUS "))[1:] {
		rec, _, ok := bytes.Cut(piece, []byte("||\r\n"))
		if !ok || len(rec) < 41 || !bytes.Equal(rec[len(rec)-41:], append([]byte(" "), tail...)) || seen[string(rec)] {
			t.Fatalf("torn or repeated record %q", piece[:min(len(piece), 80)])
		}
		seen[string(rec)] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d records, want %d", len(seen), writers*each)
	}
}
