package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIDSetGrowsAndCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ids")
	var s Session
	set, err := OpenIDSet(path, &s)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000 // several doublings
	for k := uint64(0); k < n; k++ {
		if err := set.Add(k * 0x9e3779b97f4a7c15); err != nil {
			t.Fatal(err)
		}
	}
	for k := uint64(0); k < n; k++ {
		if ok, _ := set.Has(k * 0x9e3779b97f4a7c15); !ok {
			t.Fatalf("lost key %d within the call", k)
		}
	}
	if ok, _ := set.Has(12345); ok {
		t.Fatal("found a key never added")
	}
	set.Close()
	committed := s // saved

	// The next call sees them all, and the table keeps growing as it fills.
	set, _ = OpenIDSet(path, &s)
	for k := uint64(n); k < 3*n; k++ {
		if err := set.Add(k * 0x9e3779b97f4a7c15); err != nil {
			t.Fatal(err)
		}
	}
	for k := uint64(0); k < n; k++ {
		if ok, _ := set.Has(k * 0x9e3779b97f4a7c15); !ok {
			t.Fatalf("lost key %d", k)
		}
	}
	// This call adds one and dies before the Session is saved.
	set.Add(777)
	set.Close()
	s = committed
	set, _ = OpenIDSet(path, &s)
	if ok, _ := set.Has(777); ok {
		t.Error("an uncommitted entry survived")
	}
	if ok, _ := set.Has(0); !ok {
		t.Error("a committed entry was purged")
	}
	set.Close()
}

func TestIDSetOfAnotherSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ids")
	s := Session{Totals: Usage{In: 5}, Gen: 3, Epoch: 42}
	os.WriteFile(path, []byte("not a table"), 0o600)
	set, err := OpenIDSet(path, &s)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if s.Totals != (Usage{}) || s.Epoch == 42 || s.Gen != 0 {
		t.Errorf("a session whose id set is gone must recount: %+v", s)
	}
}
