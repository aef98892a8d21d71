//go:build hookwire_record

package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/hookwire/hookwire/internal/agent"
)

// With the build tag hookwire_record (the live suite's build, never a
// release), every payload a hook parses is written to $HOOKWIRE_RECORD_DIR
// as AGENT-EVENT-HASH.json: the five binaries of one event write one file.
// The live suite compares their shapes with the recorded payloads of the
// pinned agent version (internal/live/shape_test.go).
func init() {
	dir := os.Getenv("HOOKWIRE_RECORD_DIR")
	if dir == "" {
		return
	}
	recordPayload = func(ev agent.Event) {
		if len(ev.Raw) == 0 || ev.Name == "" {
			return
		}
		sum := sha256.Sum256(ev.Raw)
		name := string(ev.Agent) + "-" + filepath.Base(ev.Name) + "-" + hex.EncodeToString(sum[:6]) + ".json"
		_ = os.MkdirAll(dir, 0o700)
		_ = os.WriteFile(filepath.Join(dir, name), ev.Raw, 0o600)
	}
}
