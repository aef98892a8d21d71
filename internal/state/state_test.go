package state

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
)

func env(dir string) func(string) string {
	return func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return dir
		}
		return ""
	}
}

func TestOpenCreatesPrivateDirs(t *testing.T) {
	noModeBits(t)
	run := t.TempDir()
	s, err := Open(env(run), "pulse-claude")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(run, "hookwire"), s.Dir()} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v", d, fi.Mode(), err)
		}
	}
}

func TestOpenTightensItsOwnDir(t *testing.T) {
	noModeBits(t)
	run := t.TempDir()
	os.Mkdir(filepath.Join(run, "hookwire"), 0o777)
	os.Chmod(filepath.Join(run, "hookwire"), 0o777)
	if _, err := Open(env(run), "x"); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(run, "hookwire"))
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

func TestOpenRefusesASymlink(t *testing.T) {
	run := t.TempDir()
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(run, "hookwire"))
	linkSeen(t, filepath.Join(run, "hookwire"))
	if _, err := Open(env(run), "x"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("err %v", err)
	}
}

func TestOpenRefusesSomeoneElsesDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: a directory's owner is a SID, not a uid, and Wine has one user to own them; TestOwnDirIsOurs checks the SID")
	}
	saved := safefile.Owner
	defer func() { safefile.Owner = saved }()
	safefile.Owner = func(fs.FileInfo) (int, bool) { return os.Getuid() + 1, true }
	if _, err := Open(env(t.TempDir()), "x"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("err %v", err)
	}
}

func TestOpenUnwritable(t *testing.T) {
	// A path under a regular file cannot be created, even by root.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	if _, err := Open(env(f), "x"); err == nil {
		t.Error("no error")
	}
}

func TestRootFallback(t *testing.T) {
	got := Root(func(string) string { return "" })
	if got != filepath.Join(os.TempDir(), "hookwire-"+userTag()) {
		t.Errorf("root %s", got)
	}
	if got := Root(env("relative/dir")); got == "relative/dir/hookwire" {
		t.Error("a relative XDG_RUNTIME_DIR is not a runtime dir")
	}
}

func TestReadWriteRemove(t *testing.T) {
	s, _ := Open(env(t.TempDir()), "x")
	if b, err := s.Read("a"); b != nil || err != nil {
		t.Errorf("missing: %q %v", b, err)
	}
	if err := s.Write("a", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Read("a"); string(b) != "one" {
		t.Errorf("read %q", b)
	}
	if err := s.Remove("a"); err != nil {
		t.Error(err)
	}
	if err := s.Remove("a"); err != nil {
		t.Errorf("removing twice: %v", err)
	}
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// Many writers incrementing one counter under the lock lose no update.
func TestLockSerializes(t *testing.T) {
	s, _ := Open(env(t.TempDir()), "x")
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			release, err := s.Lock(ctx, "n")
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			b, _ := s.Read("n")
			n, _ := strconv.Atoi(string(b))
			if err := s.Write("n", []byte(strconv.Itoa(n+1))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if b, _ := s.Read("n"); string(b) != "32" {
		t.Errorf("counter %q, want 32", b)
	}
}

func TestLockTimesOut(t *testing.T) {
	s, _ := Open(env(t.TempDir()), "x")
	release, err := s.Lock(context.Background(), "n")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx, "n"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v", err)
	}
}

func TestGC(t *testing.T) {
	s, _ := Open(env(t.TempDir()), "x")
	s.Write("old", nil)
	s.Write("new", nil)
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(s.Dir(), "old"), old, old)
	if n := s.GC(24 * time.Hour); n != 1 {
		t.Errorf("removed %d", n)
	}
	if b, _ := os.ReadDir(s.Dir()); len(b) != 1 || b[0].Name() != "new" {
		t.Errorf("left %v", b)
	}
}

// Tidy collects at most once per interval: a session start must not read a
// directory of thousands of files each time.
func TestTidy(t *testing.T) {
	s, _ := Open(env(t.TempDir()), "x")
	old := time.Now().Add(-48 * time.Hour)
	stale := func(name string) {
		s.Write(name, nil)
		os.Chtimes(filepath.Join(s.Dir(), name), old, old)
	}
	stale("a")
	if n := s.Tidy(24*time.Hour, time.Hour); n != 1 {
		t.Errorf("first Tidy removed %d, want 1", n)
	}
	stale("b")
	if n := s.Tidy(24*time.Hour, time.Hour); n != 0 {
		t.Errorf("a Tidy within the hour removed %d, want 0", n)
	}
	// An hour later (the stamp aged), it collects again.
	os.Chtimes(filepath.Join(s.Dir(), tidyStamp), time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))
	if n := s.Tidy(24*time.Hour, time.Hour); n != 1 {
		t.Errorf("a Tidy after the hour removed %d, want 1", n)
	}
	// A stamp from the future (a clock set back) does not stop collection.
	future := time.Now().Add(48 * time.Hour)
	os.Chtimes(filepath.Join(s.Dir(), tidyStamp), future, future)
	stale("c")
	if n := s.Tidy(24*time.Hour, time.Hour); n != 1 {
		t.Errorf("a Tidy after a stamp from the future removed %d, want 1", n)
	}
}

// GC's cost grows with the directory; Tidy's does not, after the first.
func BenchmarkTidy(b *testing.B) {
	for _, n := range []int{10, 3000} {
		s, _ := Open(env(b.TempDir()), "x")
		for i := range n {
			s.Write(strconv.Itoa(i)+".scan", []byte("x"))
		}
		b.Run("GC/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				s.GC(7 * 24 * time.Hour)
			}
		})
		b.Run("Tidy/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				s.Tidy(7*24*time.Hour, time.Hour)
			}
		})
	}
}

// A lock a hook takes and lets go, uncontended: a warm worker takes the
// session's order lock before it lets the agent go.
func BenchmarkLock(b *testing.B) {
	s, _ := Open(env(b.TempDir()), "x")
	for b.Loop() {
		release, err := s.Lock(context.Background(), "session")
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}

func TestKey(t *testing.T) {
	for id, want := range map[string]string{
		"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11": "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11",
		"ses_ab12":                             "ses_ab12",
	} {
		if got := Key(id); got != want {
			t.Errorf("Key(%q) = %q", id, got)
		}
	}
	for _, pair := range [][2]string{{"a/b", "ab"}, {"../x", "..x"}, {"", " "}} {
		a, b := Key(pair[0]), Key(pair[1])
		if a == b || filepath.Base(a) != a || a == "" || a == "." || a == ".." {
			t.Errorf("Key(%q) = %q, Key(%q) = %q", pair[0], a, pair[1], b)
		}
	}
}

// The lock never splits: session ends (Remove under the lock) and GC running
// beside holders and waiters never let two of them hold "the" lock at once,
// as a waiter on an unlinked file and a newcomer on a new one would.
func TestLockNeverSplits(t *testing.T) {
	s, err := Open(env(t.TempDir()), "x")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var inside, overlaps int32
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // GC, as every hook runs it, with everything already old
		for {
			select {
			case <-stop:
				return
			default:
				s.GC(-time.Hour)
			}
		}
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				release, err := s.Lock(ctx, "session")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				if inside > 1 {
					overlaps++
				}
				mu.Unlock()
				s.Write("session", []byte(strconv.Itoa(i)))
				if (g+i)%3 == 0 {
					s.Remove("session") // a session end
				}
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				release()
			}
		}()
	}
	wg.Wait()
	close(stop)
	if overlaps > 0 {
		t.Errorf("the lock was held twice at once %d times", overlaps)
	}
}

// Without $XDG_RUNTIME_DIR, a predictable name in the temp directory that
// another user took first (here a link; as root, also a directory chowned
// to another uid) does not keep state off: it moves to the user's cache
// directory, and Squatted names the owner.
func TestOpenSquatted(t *testing.T) {
	tmp, home := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TMP", tmp) // Windows's
	getenv := func(k string) string {
		return map[string]string{"HOME": home, "USERPROFILE": home, "LocalAppData": filepath.Join(home, ".cache")}[k]
	}
	predictable := filepath.Join(tmp, "hookwire-"+userTag())
	squats := map[string]func(){
		"link": func() { os.Symlink(t.TempDir(), predictable); linkSeen(t, predictable) },
	}
	if os.Geteuid() == 0 {
		squats["another user's directory"] = func() {
			os.Mkdir(predictable, 0o700)
			if err := os.Chown(predictable, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, squat := range squats {
		os.RemoveAll(predictable)
		os.RemoveAll(filepath.Join(home, ".cache"))
		squat()
		s, err := Open(getenv, "x")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := filepath.Join(home, ".cache", "hookwire", "x"); s.Dir() != want {
			t.Errorf("%s: dir %s, want %s", name, s.Dir(), want)
		}
		if err := s.Write("f", []byte("kept")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if b, _ := s.Read("f"); string(b) != "kept" {
			t.Errorf("%s: read %q", name, b)
		}
		by, taken := Squatted(predictable)
		if !taken || name != "link" && by != 4242 {
			t.Errorf("%s: squatted by %d, %v", name, by, taken)
		}
	}
	// Once the name is free again, the temp directory is used.
	os.RemoveAll(predictable)
	if got := Root(getenv); got != predictable {
		t.Errorf("root %s, want %s", got, predictable)
	}
}

// noModeBits skips a test of Unix permission bits on Windows, where a
// directory's access is its ACL and Go reports every directory as 0777.
func noModeBits(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no permission bits (Go reports 0777; access is the ACL): TestOwnDirIsOurs checks the owner there")
	}
}

// linkSeen skips a test of a planted symbolic link where the system does not
// report the link as one: Wine shows a Unix symlink to a directory as that
// directory (no reparse point), which Windows itself does not.
func linkSeen(t *testing.T, path string) {
	if fi, err := os.Lstat(path); runtime.GOOS == "windows" && (err != nil || fi.Mode()&fs.ModeSymlink == 0) {
		t.Skipf("%s: not reported as a symbolic link here (Wine: no reparse point for a Unix symlink; %v)", path, err)
	}
}
