package agent

import (
	"strings"
	"testing"
)

// TestShapesDescribed: every shape an agent's hooks take is described for
// docs/settings.md's settings table (a new Shape needs its line in String).
func TestShapesDescribed(t *testing.T) {
	for _, d := range Installable() {
		if s := d.Settings.Shape.String(); strings.HasPrefix(s, "shape ") {
			t.Errorf("%s: %s has no description: add it to Shape.String (shape.go)", d.Agent, s)
		}
	}
}
