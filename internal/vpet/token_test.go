package vpet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"
)

var tokenFile = regexp.MustCompile(`\A[0-9a-f]{64}\n\z`)

func resolve(t *testing.T, path string, e map[string]string) (Token, error) {
	t.Helper()
	return ResolveToken(TokenOptions{Getenv: env(e), File: path, Create: true, Ctx: context.Background()})
}

func TestTokenCreated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "VPet", "notify.token") // the directory too
	tok, err := resolve(t, path, nil)
	if err != nil || !tok.Created || len(tok.Value) != 64 {
		t.Fatalf("%+v %v", tok, err)
	}
	b, _ := os.ReadFile(path)
	if !tokenFile.Match(b) || string(b) != tok.Value+"\n" {
		t.Errorf("file holds %q", b)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(path)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode().Perm())
		}
	}
	again, err := resolve(t, path, nil)
	if err != nil || again.Value != tok.Value || again.Created {
		t.Errorf("second call: %+v %v", again, err)
	}
}

func TestTokenNeverOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.token")
	os.WriteFile(path, []byte("  theirs \n\n"), 0o644) // someone else's, mode and all
	tok, err := resolve(t, path, nil)
	if err != nil || tok.Value != "theirs" || tok.Created {
		t.Errorf("%+v %v", tok, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "  theirs \n\n" {
		t.Errorf("file now %q", b)
	}
}

func TestTokenEmptyFilled(t *testing.T) {
	for _, content := range []string{"", " \n\t\n"} {
		path := filepath.Join(t.TempDir(), "notify.token")
		os.WriteFile(path, []byte(content), 0o644)
		old := time.Now().Add(-time.Minute) // not a creator that is about to write
		os.Chtimes(path, old, old)
		tok, err := resolve(t, path, nil)
		if err != nil || !tok.Created {
			t.Fatalf("%q: %+v %v", content, tok, err)
		}
		b, _ := os.ReadFile(path)
		if string(b) != tok.Value+"\n" {
			t.Errorf("%q: file now %q", content, b)
		}
		if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode().Perm())
		}
	}
}

// A file that was just created empty belongs to a creator that has not
// written yet: its token is waited for, not replaced.
func TestTokenYoungEmptyFileWaitedFor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.token")
	os.WriteFile(path, nil, 0o600)
	go func() {
		time.Sleep(30 * time.Millisecond)
		os.WriteFile(path, []byte("creators\n"), 0o600)
	}()
	tok, err := resolve(t, path, nil)
	if err != nil || tok.Value != "creators" || tok.Created {
		t.Errorf("%+v %v", tok, err)
	}
}

func TestTokenUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.token")
	os.Mkdir(path, 0o700) // unreadable as a file, for root too
	os.WriteFile(filepath.Join(path, "keep"), []byte("x"), 0o600)
	tok, err := resolve(t, path, nil)
	if !errors.Is(err, ErrNoToken) || tok.Value != "" {
		t.Errorf("%+v %v", tok, err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Error("the unreadable file was replaced")
	}
}

func TestTokenFromEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.token")
	for _, tc := range []struct {
		env         map[string]string
		value, from string
	}{
		{map[string]string{"VPET_NOTIFY_TOKEN": "v", "AGENTICA_NOTIFY_TOKEN": "a"}, "v", "VPET_NOTIFY_TOKEN"},
		{map[string]string{"VPET_NOTIFY_TOKEN": "", "AGENTICA_NOTIFY_TOKEN": " a\n"}, "a", "AGENTICA_NOTIFY_TOKEN"},
		// Blank is unset, as agentica reads it: the twin, then the file.
		{map[string]string{"VPET_NOTIFY_TOKEN": "   ", "AGENTICA_NOTIFY_TOKEN": "a"}, "a", "AGENTICA_NOTIFY_TOKEN"},
	} {
		tok, err := resolve(t, path, tc.env)
		if err != nil || tok.Value != tc.value || tok.Where != tc.from {
			t.Errorf("%v: %+v %v", tc.env, tok, err)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a token from the environment created the file")
	}
	if tok, err := resolve(t, path, map[string]string{"AGENTICA_NOTIFY_TOKEN": "   "}); err != nil || tok.Value == "" || tok.Where == "AGENTICA_NOTIFY_TOKEN" {
		t.Errorf("a blank token is no token: %+v %v", tok, err)
	}
	os.Remove(path)
	if _, err := resolve(t, path, map[string]string{"VPET_NOTIFY_TOKEN": "two words"}); !errors.Is(err, ErrNoToken) {
		t.Errorf("a token a header cannot carry: %v", err)
	}
}

func TestTokenNotCreatedWhenNotAllowed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.token")
	_, err := ResolveToken(TokenOptions{Getenv: env(nil), File: path})
	if !errors.Is(err, ErrAbsent) {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("created")
	}
}

// Many creators at once, with and without the lock that hookwire's own
// processes share: all of them end with the one token in the file.
func TestTokenConcurrentCreation(t *testing.T) {
	for _, locked := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "notify.token")
		var mu sync.Mutex
		lock := func(context.Context) (func(), error) { mu.Lock(); return mu.Unlock, nil }
		if !locked {
			lock = nil
		}
		const n = 16
		got := make([]string, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				tok, err := ResolveToken(TokenOptions{Getenv: env(nil), File: path, Create: true, Lock: lock, Ctx: context.Background()})
				if err != nil {
					t.Errorf("%v", err)
				}
				got[i] = tok.Value
			})
		}
		close(start)
		wg.Wait()
		b, _ := os.ReadFile(path)
		for i, v := range got {
			if v+"\n" != string(b) {
				t.Errorf("locked %v: creator %d has %q, the file %q", locked, i, v, b)
			}
		}
	}
}

// A link planted at the token file's path, to an empty file of the user's
// (old enough to count as empty, not as one being written), is refused: the
// token is never written through it.
func TestTokenNeverWrittenThroughALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, nil, 0o644)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(victim, old, old)
	path := filepath.Join(t.TempDir(), "notify.token")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if tok, err := resolve(t, path, nil); err == nil && tok.Created {
		t.Errorf("a token was made: %+v", tok)
	}
	if b, _ := os.ReadFile(victim); len(b) != 0 {
		t.Errorf("the link's target holds %q", b)
	}
}
