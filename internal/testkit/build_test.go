package testkit

import (
	"os"
	"testing"
)

type fakeM func() int

func (f fakeM) Run() int { return f() }

// The suite's directory goes when the tests are done.
func TestCleanupAfterRemovesTheSuite(t *testing.T) {
	var dir string
	code := CleanupAfter(fakeM(func() int {
		dir, _ = BuildSuite(t.TempDir()) // no module there: the build fails at once, the directory exists
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("BuildSuite made no directory: %v", err)
		}
		return 3
	})).Run()
	if code != 3 {
		t.Errorf("code %d", code)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", dir, err)
	}
}
