package consent

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/hookwire/hookwire/internal/safefile"
)

func TestModeOf(t *testing.T) {
	rt := t.TempDir()
	getenv := func(k string) string { return map[string]string{"XDG_RUNTIME_DIR": rt}[k] }
	if m := ModeOf(getenv); m != Off {
		t.Errorf("no mode file: %s", m)
	}
	os.Mkdir(filepath.Join(rt, "claude-companion"), 0o700)
	for content, want := range map[string]Mode{"enforce": Enforce, "learn\n": Learn, " learn ": Learn, "ENFORCE!!": Off, "off": Off, "": Off} {
		os.WriteFile(filepath.Join(rt, "claude-companion", "mode"), []byte(content), 0o600)
		if m := ModeOf(getenv); m != want {
			t.Errorf("mode file %q: %s, want %s", content, m, want)
		}
	}
	if m := ModeOf(func(string) string { return "" }); m != Off {
		t.Errorf("no XDG_RUNTIME_DIR: %s, want off (never /tmp)", m)
	}
}

func TestIDs(t *testing.T) {
	for in, want := range map[string]string{"toolu_01ABC": "toolu_01ABC", "toolu_01/../x y": "toolu_01xy", "a-b_c": "a-b_c", "é1": "1"} {
		if got := RequestID(in); got != want {
			t.Errorf("RequestID(%q) = %q, want %q", in, got, want)
		}
	}
	hex16, hex32 := regexp.MustCompile(`^[0-9a-f]{16}$`), regexp.MustCompile(`^[0-9a-f]{32}$`)
	if id := RequestID("../"); !hex16.MatchString(id) {
		t.Errorf("RequestID without a usable id = %q, want 16 hex digits", id)
	}
	if n, m := Nonce(), Nonce(); !hex32.MatchString(n) || n == m {
		t.Errorf("nonces %q, %q: want 32 hex digits, never twice", n, m)
	}
}

// A .req or .res that is a link, or another user's, is refused: the
// request is not written through it, and the answer ends the wait with no
// decision.
func TestRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the panel is noctalia's, a Linux bar: its files' links and owners are Unix's (Wine does not report a link as one, nor another user's file)")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte(`{"nonce": "n", "decision": "allow"}`), 0o600)
	link := filepath.Join(dir, "r.res")
	os.Symlink(target, link)
	if a := readAnswer(link, "n"); !a.read || a.decision != "" {
		t.Errorf("a .res that is a link: %+v, want read with no decision", a)
	}
	req := filepath.Join(dir, "r.req")
	os.Symlink(filepath.Join(dir, "victim"), req)
	if err := writeRequest(req, Request{ID: "r"}); err == nil {
		t.Error("a .req that is a link was written through")
	}
	if _, err := os.Stat(filepath.Join(dir, "victim")); err == nil {
		t.Error("the link's target was created")
	}

	res := filepath.Join(dir, "o.res")
	os.WriteFile(res, []byte(`{"nonce": "n", "decision": "allow"}`), 0o600)
	if a := readAnswer(res, "n"); a.decision != "allow" {
		t.Fatalf("our own answer: %+v", a)
	}
	defer func(o func(fs.FileInfo) (int, bool)) { safefile.Owner = o }(safefile.Owner)
	safefile.Owner = func(fs.FileInfo) (int, bool) { return os.Geteuid() + 1, true }
	if a := readAnswer(res, "n"); !a.read || a.decision != "" {
		t.Errorf("another user's answer: %+v, want no decision", a)
	}
	if _, err := requestDir(filepath.Join(dir, "cc")); err == nil {
		t.Error("a consent directory of another user's was taken")
	}
}

// Not there yet, or half written: the wait goes on.
func TestAnswerPending(t *testing.T) {
	dir := t.TempDir()
	if a := readAnswer(filepath.Join(dir, "none.res"), "n"); a.read {
		t.Errorf("no file: %+v", a)
	}
	half := filepath.Join(dir, "half.res")
	os.WriteFile(half, []byte(`{"nonce": "n", "deci`), 0o600)
	if a := readAnswer(half, "n"); a.read {
		t.Errorf("half written: %+v", a)
	}
}
