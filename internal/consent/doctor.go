package consent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/install"
)

// Findings are doctor's account of the panel: its mode, and where each
// agent's approvals are asked under it.
func Findings(getenv func(string) string) []install.Finding {
	dir := Dir(getenv)
	if dir == "" {
		return []install.Finding{{Status: install.OK, What: "the consent panel is off: no XDG_RUNTIME_DIR (consent.py never looks in /tmp); approvals are asked where each agent asks them"}}
	}
	mode := filepath.Join(dir, "mode")
	switch ModeOf(getenv) {
	case Learn:
		return []install.Finding{{Status: install.OK, What: "the consent panel learns (" + mode + "): the calls it would ask about go to " + filepath.Join(dir, "learn.jsonl") + ", none is held; approvals are asked where each agent asks them"}}
	case Enforce:
		return []install.Finding{{Status: install.OK, What: "the consent panel enforces (" + mode + "): it asks " + askedWhere() +
			", unless allowlisted in " + filepath.Join(StateDir(getenv), "allow.jsonl") + "; Coucou shows no card for those"}}
	}
	what := "the consent panel is off"
	if b, err := os.ReadFile(mode); err == nil {
		what += fmt.Sprintf(" (%s holds %q)", mode, strings.TrimSpace(string(b)))
	} else {
		what += " (no " + mode + ")"
	}
	return []install.Finding{{Status: install.OK, What: what + "; approvals are asked where each agent asks them"}}
}

// askedWhere names the agents the panel asks, and on which hook.
func askedWhere() string {
	var out []string
	for _, d := range agent.Installable() {
		for _, n := range d.Events {
			if AsksAt(d, n.Name) {
				w := d.Title + " (" + n.Name
				if n.Kind == agent.ToolStart {
					w += ": Bash, Write, Edit, NotebookEdit"
				}
				out = append(out, w+")")
				break
			}
		}
	}
	return strings.Join(out, ", ")
}
