package install

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookwire/hookwire/internal/hook"
)

// wiredDoctorCmd is doctor with no --surfaces: every agent × surface pair
// setup wired, in one table, and what to do for each that stays silent.
// A pair is silent when the agent's settings no longer hold what setup
// wrote (or the agent would not run it: Codex's trust), when the binary
// the hooks run is gone, or when the surface's own check fails (each
// surface's Check, run once).
type wiredDoctorCmd struct {
	setupData
}

func (c *wiredDoctorCmd) Run(con *hook.Console) error {
	home, _ := os.UserHomeDir()
	statePath := stateFile(con.Getenv, home)
	st, err := loadState(statePath)
	if err != nil {
		return err
	}
	if len(st.Agents) == 0 || len(st.Surfaces) == 0 {
		return fmt.Errorf("setup has wired nothing here (no %s): run %s setup; for the hooks of one surface's own binary, run its doctor (%s doctor --surfaces NAME checks those %s install wrote)",
			statePath, c.binary, c.binary, c.binary)
	}
	var whole []Finding // what silences every pair
	if fi, err := os.Stat(st.Binary); err != nil || fi.IsDir() {
		whole = append(whole, Finding{Status: Fail, What: "the hooks run " + st.Binary + ", which is not there",
			Fix: c.binary + " setup --yes, with the " + c.binary + " you keep (or --path PATH)"})
	}
	spec := c.spec(st.Surfaces)
	if spec.Former != "" && filepath.Base(st.Binary) == spec.Former {
		whole = append(whole, Finding{Status: Warn,
			What: "the hooks run " + st.Binary + ", which " + spec.Binary + " no longer has (" + spec.Binary + " runs every event itself): events reach " + spec.Binary + " through it only while it is there",
			Fix:  c.binary + " setup --yes rewrites them to run " + spec.Binary})
	}
	if spec.FormerCheck != nil {
		whole = append(whole, spec.FormerCheck(con.Getenv)...)
	}
	checks := map[string][]Finding{}
	for _, s := range c.surfaces {
		if slices.Contains(st.Surfaces, s.Name) {
			checks[s.Name] = s.check(con.Getenv)
		}
	}
	agents := map[string][]Finding{}
	run := &setupCmd{setupData: c.setupData}
	for _, name := range st.Agents {
		a := Agents[name]
		if a == nil {
			continue
		}
		sp := spec
		sp.Asking = st.Approvals && len(sp.AskEvents(a)) > 0
		p := &plan{chosen: st.Surfaces}
		cs, err := run.agentChanges(con.Getenv, home, a, sp, st.Binary, p)
		if err != nil {
			agents[name] = append(agents[name], Finding{Status: Fail, What: a.Title() + ": " + err.Error(), Fix: c.binary + " setup"})
			continue
		}
		for _, ch := range cs {
			switch ch.role {
			case "trust":
				agents[name] = append(agents[name], Finding{Status: Fail, What: a.Title() + ": " + sp.Binary + "'s hooks are not all trusted, and Codex skips those silently",
					Fix: c.binary + " setup --yes trusts them (or: " + strings.ReplaceAll(fmt.Sprintf(a.TrustStep, sp.Binary), "\n ", "") + ")"})
			default:
				agents[name] = append(agents[name], Finding{Status: Fail, What: a.Title() + ": " + ch.path + " no longer holds what setup wrote",
					Fix: c.binary + " setup --yes (--dry-run shows what it would change)"})
			}
		}
		for _, n := range p.notes {
			agents[name] = append(agents[name], Finding{Status: Warn, What: n})
		}
	}
	head := []string{""}
	for _, s := range c.surfaces {
		head = append(head, s.Title)
	}
	rows := [][]string{head}
	silent := 0
	for _, name := range st.Agents {
		a := Agents[name]
		if a == nil {
			continue
		}
		row := []string{a.Title()}
		for _, s := range c.surfaces {
			cell := "-"
			if slices.Contains(st.Surfaces, s.Name) {
				cell = "ok"
				if failed(whole) || failed(agents[name]) || failed(checks[s.Name]) {
					cell, silent = "silent", silent+1
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(con.Out, "What %s setup wired (%s), and whether each pair gets through:\n\n", c.binary, st.Binary)
	io.WriteString(con.Out, table(rows))
	fmt.Fprintln(con.Out, "\n(ok: wired, and the surface answers; silent: see below; -: not wired)")
	fmt.Fprintln(con.Out)
	for _, f := range whole {
		show(con, f)
	}
	for _, name := range st.Agents {
		for _, f := range agents[name] {
			show(con, f)
		}
	}
	for _, s := range c.surfaces {
		for _, f := range checks[s.Name] {
			f.What = s.Title + ": " + f.What
			show(con, f)
		}
	}
	if silent > 0 {
		return fmt.Errorf("%d of the pairs stay silent: each XX above says what to do", silent)
	}
	return nil
}

func failed(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Status == Fail })
}
