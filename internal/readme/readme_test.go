package readme

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
)

//go:generate go test -run ^TestREADME$ -update

var update = flag.Bool("update", false, "rewrite the generated tables of README.md and ARCHITECTURE.md")

// docs are the files with generated tables, and whether each must hold
// every table.
var docs = []struct {
	path string
	all  bool
}{
	{"../../README.md", true},
	{"../../ARCHITECTURE.md", false},
}

// TestREADME fails when a generated table of README.md or ARCHITECTURE.md
// is not what the code says (an agent, a setting or a variable changed, or
// the table was edited by hand).
func TestREADME(t *testing.T) {
	for _, doc := range docs {
		name := filepath.Base(doc.path)
		have, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Update(have)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for table := range Tables {
			if doc.all && !bytes.Contains(have, []byte("<!-- generated: "+table+" -->\n")) {
				t.Errorf("%s has no <!-- generated: %s --> table", name, table)
			}
		}
		if bytes.Equal(want, have) {
			continue
		}
		if *update {
			if err := os.WriteFile(doc.path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's generated tables are not current: run go generate ./internal/readme\n%s", name, firstDiff(name, have, want))
	}
}

// firstDiff shows the first line that differs.
func firstDiff(name string, a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return name + ":" + strconv.Itoa(i+1) + ":\n  have: " + al[i] + "\n  want: " + bl[i]
		}
	}
	return name + ": the lengths differ"
}

// TestUpdateRefusesUnknownTable: a mark with a typo is an error, not a
// table silently left as it was.
func TestUpdateRefusesUnknownTable(t *testing.T) {
	_, err := Update([]byte("<!-- generated: agent -->\nold\n<!-- end -->\n"))
	if err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Fatalf("err = %v", err)
	}
	out, err := Update([]byte("a\n<!-- generated: agents -->\nold\n<!-- end -->\nb\n"))
	if err != nil || bytes.Contains(out, []byte("\nold\n")) || !bytes.HasPrefix(out, []byte("a\n<!-- generated: agents -->\n| agent |")) ||
		!bytes.HasSuffix(out, []byte("|\n<!-- end -->\nb\n")) {
		t.Fatalf("Update = %q, %v", out, err)
	}
}

// TestBinaries: the README's binaries are the commands under cmd/.
func TestBinaries(t *testing.T) {
	dirs, err := os.ReadDir("../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, d := range dirs {
		if d.Name() == "hookwire" {
			continue // the binaries below, from one process (internal/combined): no surface of its own
		}
		want = append(want, d.Name())
	}
	for _, b := range Binaries() {
		got = append(got, b.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Binaries() = %v, cmd/ has %v: list the new binary in Binaries", got, want)
	}
}

// TestTablesNameEveryAgent: every dialect, every installable agent's
// settings, every binary's variables are in the tables.
func TestTablesNameEveryAgent(t *testing.T) {
	agents, settings, env, hooks := agentsTable(), settingsTable(), envTable(), hooksTable()
	for _, d := range agent.Dialects() {
		if !strings.Contains(agents, "| "+d.Title+" | `"+string(d.Agent)+"`") {
			t.Errorf("agents table: no row for %s", d.Agent)
		}
	}
	for _, d := range agent.Installable() {
		if !strings.Contains(settings, "| "+d.Title+" |") || !strings.Contains(hooks, "| "+d.Title+" |") {
			t.Errorf("settings or hooks table: no row for %s", d.Agent)
		}
	}
	for _, s := range surfaces() {
		for _, v := range s.spec.Env {
			if !strings.Contains(env, "`"+v.Name+"`") {
				t.Errorf("env table: no %s (%s)", v.Name, s.Name)
			}
		}
	}
}

// TestHelp: each binary's --help lists its variables, every binary's, and
// every agent, from the same data as the README.
func TestHelp(t *testing.T) {
	for _, s := range surfaces() {
		var out bytes.Buffer
		if code := hook.Run(s.Binary, []string{"--help"}, nil, &out, &out); code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", s.Name, code, out.String())
		}
		help := out.String()
		if strings.Count(help, "Environment:") != 1 {
			t.Errorf("%s --help: %d Environment sections, want 1 (a hand-written one in its Help?)", s.Name, strings.Count(help, "Environment:"))
		}
		for _, v := range s.spec.Env {
			if !strings.Contains(help, "\n    "+v.Name) {
				t.Errorf("%s --help does not list %s", s.Name, v.Name)
			}
		}
		for _, d := range agent.Dialects() {
			if !strings.Contains(help, "\n    "+string(d.Agent)) {
				t.Errorf("%s --help does not list the agent %s", s.Name, d.Agent)
			}
		}
		for _, name := range install.AgentNames() {
			if h := install.Agents[name].HomeVar; h != "" && !strings.Contains(help, h) {
				t.Errorf("%s --help does not name %s", s.Name, h)
			}
		}
	}
}
