package remote

import "testing"

// The spool's name is made once, by the first relay, and kept; another
// directory gets another.
func TestSpoolID(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	id := spoolID(a)
	if len(id) != 2*idBytes {
		t.Fatalf("spoolID = %q, want %d hex digits", id, 2*idBytes)
	}
	if again := spoolID(a); again != id {
		t.Errorf("the second relay named the spool %q, the first %q", again, id)
	}
	if other := spoolID(b); other == id || other == "" {
		t.Errorf("another directory's spool: %q (the first: %q)", other, id)
	}
}
