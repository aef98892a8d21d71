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

var update = flag.Bool("update", false, "rewrite the generated tables of README.md, ARCHITECTURE.md and docs/")

// root is the repository, from this package's directory.
const root = "../.."

// docs are the files with generated tables (slash paths from the
// repository's root), and the tables each holds. A table moved to another
// page moves here too: the test fails on a page that lost one of its tables,
// on a table that is on no page, and on a marked file not listed here (go
// generate would leave its tables stale).
var docs = []struct {
	path   string
	tables []string
}{
	{"README.md", []string{"agents"}},
	{"ARCHITECTURE.md", []string{"events", "settings"}},
	{"docs/agents.md", []string{"agents", "events", "surfaces", "hooks"}},
	{"docs/coucou.md", []string{"replies"}},
	{"docs/settings.md", []string{"settings"}},
	{"docs/environment.md", []string{"env"}},
	{"docs/hookwire.md", []string{"setup"}},
}

// TestREADME fails when a generated table of README.md, ARCHITECTURE.md or
// a page of docs/ is not what the code says (an agent, a setting or a
// variable changed, or the table was edited by hand), or is not where docs
// says it is.
func TestREADME(t *testing.T) {
	held := map[string]bool{}
	for _, doc := range docs {
		name := doc.path
		have, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc.path)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Update(have)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := markedTables(have); !slices.Equal(got, sortStrings(slices.Clone(doc.tables))) {
			t.Errorf("%s holds the generated tables %v, docs says %v: move the mark back, or say where the table went in docs", name, got, doc.tables)
		}
		for _, table := range doc.tables {
			held[table] = true
		}
		if bytes.Equal(want, have) {
			continue
		}
		if *update {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(doc.path)), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's generated tables are not current: run go generate ./internal/readme\n%s", name, firstDiff(name, have, want))
	}
	for _, table := range names() {
		if !held[table] {
			t.Errorf("no page in docs holds the <!-- generated: %s --> table", table)
		}
	}
	listed := map[string]bool{}
	for _, doc := range docs {
		listed[doc.path] = true
	}
	for _, f := range markdownFiles(t) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if tables := markedTables(b); len(tables) > 0 && !listed[f] {
			t.Errorf("%s holds generated tables %v but is not in docs: go generate would not update it", f, tables)
		}
	}
}

// markedTables names the generated tables of a file, sorted.
func markedTables(doc []byte) []string {
	var out []string
	for _, m := range marks.FindAllSubmatch(doc, -1) {
		out = append(out, string(m[2]))
	}
	return sortStrings(out)
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
		if d.Name() == "hookwire" || d.Name() == "hookwire-client" {
			continue // the binaries below, from one process (internal/combined), and its client: no surface of their own
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
