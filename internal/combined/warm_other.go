//go:build !linux

package combined

import (
	"fmt"
	"io"
	"os"

	"github.com/hookwire/hookwire/internal/install"
)

// warmCheck and warmEnd: no client runs here, so doctor and setup --undo
// never ask.
var (
	warmCheck install.Check
	warmEnd   func(func(string) string) string
)

// StartWarm has no worker to start here: the warm path is Linux's.
func StartWarm() {}

// Warm is `hookwire warm`, which only Linux has.
func Warm(_ []string, _ *os.File, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "hookwire warm: the warm path (hookwire-client) is Linux only")
	return 1
}
