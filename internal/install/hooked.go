package install

import (
	"slices"
	"strings"
)

// Hooked lists the agents whose user settings hold hooks of spec's binary,
// current or not, as doctor reads them: what `hookwire relay --doctor`
// reports to a desktop about the machine it runs on.
func Hooked(spec Spec, getenv func(string) string) []string {
	bin, _ := self()
	var out []string
	for _, f := range (&doctorCmd{spec: spec}).settings(getenv, bin) {
		name, rest, _ := strings.Cut(f.What, ": ")
		installed := f.Status == OK && strings.HasPrefix(rest, "hooks installed in ") ||
			f.Status == Warn && strings.HasSuffix(rest, "are not this binary's or not all there")
		if _, known := Agents[name]; known && installed && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
