// Package readme renders the documentation's tables of data from the code
// that holds the data: the agents' dialects (internal/agent), what each
// binary installs and reads (its install.Spec), the variables every binary
// reads (hook.Env). A new agent (one Dialect) or a new variable shows in the
// docs with no edit here.
//
// README.md, ARCHITECTURE.md and the pages of docs/ that hold a table (the
// test's list says which) mark each table:
//
//	<!-- generated: agents -->
//	…
//	<!-- end -->
//
// and Update rewrites what is between the marks. The test fails when a
// file is not current, or a table is not where its list says; go generate
// ./internal/readme makes them current. Its other tests check every
// relative link of the Markdown files, and that the README stays short.
package readme

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/hookwire/hookwire/internal/coral"
	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/trailboss"
	"github.com/hookwire/hookwire/internal/vpet"
)

// Binaries are the suite's binaries, in the README's order (cmd/*).
func Binaries() []hook.Binary {
	return []hook.Binary{pulse.Emit(), pulse.Claude(), coucou.Relay(), trailboss.Hook(), vpet.Notify(), coral.Pulse()}
}

// surface is a binary and what it installs.
type surface struct {
	hook.Binary
	spec install.Spec
}

func surfaces() []surface {
	var out []surface
	for _, b := range Binaries() {
		spec, _ := install.SpecOf(b)
		out = append(out, surface{b, spec})
	}
	return out
}

// Tables are the documentation's generated tables, by the name their marks give.
var Tables = map[string]func() string{
	"agents":   agentsTable,
	"settings": settingsTable,
	"events":   eventsTable,
	"surfaces": surfacesTable,
	"hooks":    hooksTable,
	"replies":  repliesTable,
	"env":      envTable,
	"setup":    setupTable,
}

// marks finds a generated table: its name, and what is between its marks.
var marks = regexp.MustCompile(`(?s)(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- end -->)`)

// Update rewrites every generated table of doc. A mark that names no table
// is an error, so that a typo does not leave a table behind.
func Update(doc []byte) ([]byte, error) {
	var err error
	out := marks.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := marks.FindSubmatch(m)
		table, ok := Tables[string(sub[2])]
		if !ok {
			err = fmt.Errorf("<!-- generated: %s -->: no such table (%s)", sub[2], strings.Join(names(), ", "))
			return m
		}
		return bytes.Join([][]byte{sub[1], []byte(table()), sub[4]}, nil)
	})
	return out, err
}

func names() []string {
	var out []string
	for n := range Tables {
		out = append(out, n)
	}
	return sortStrings(out)
}
