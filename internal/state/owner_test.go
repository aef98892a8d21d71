package state

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTempRootPerUser: the temp directory's state directory is named after
// this user: the uid, or on Windows, which has no uid (issue 39: it was
// hookwire--1 for everyone), the user's SID.
func TestTempRootPerUser(t *testing.T) {
	name := filepath.Base(TempRoot())
	want := "hookwire-S-1-"
	if runtime.GOOS != "windows" {
		want = "hookwire-" + userTag()
	}
	if !strings.HasPrefix(name, want) || strings.HasSuffix(name, "--1") {
		t.Errorf("TempRoot is %s, want %s…", name, want)
	}
}

// TestOwnDirIsOurs: a directory this user makes passes the owner check (on
// Windows the owner SID is read from the directory's security descriptor).
func TestOwnDirIsOurs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if err := safeDir(dir); err != nil {
		t.Fatal(err)
	}
	if who, other := otherOwner(dir, nil); other {
		t.Errorf("%s: owner %s is not us", dir, who)
	}
}
