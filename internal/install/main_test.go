package install

import (
	"os"
	"testing"
)

// TestMain: the package's tests write the POSIX form of a hook's command on
// every system (their goldens are Unix paths for sh); TestQuoteWindows and
// TestCopilotWindows write the Windows forms, and the root package's
// end-to-end tests the .exe files' own.
func TestMain(m *testing.M) {
	onWindows = false
	os.Exit(m.Run())
}
