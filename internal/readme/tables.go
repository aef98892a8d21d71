package readme

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
)

// table is a Markdown table.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	line(t.head)
	b.WriteString(strings.Repeat("|---", len(t.head)) + "|\n")
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

func code(s string) string { return "`" + s + "`" }

// text is plain text in a cell: what Markdown would read as markup is
// escaped (a path's <placeholder>, a backslash, a wildcard).
func text(s string) string {
	return strings.NewReplacer(`\`, `\\`, "<", "&lt;", ">", "&gt;", "*", `\*`).Replace(s)
}

// dur is a timeout for people: "10 s", "120 s", "1.5 s".
func dur(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%g s", d.Seconds())
}

func codes(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return strings.Join(out, ", ")
}

func sortStrings(ss []string) []string { slices.Sort(ss); return ss }

// agentsTable: every dialect, how it is told, and whether install writes
// its hooks.
func agentsTable() string {
	t := table{head: []string{"agent", "`--agent`", "told without `--agent`", "hooks `install` writes"}}
	for _, d := range agent.Dialects() {
		told := "no: only `--agent` names it"
		switch {
		case d.Detect != nil && d.Runs != nil:
			told = "yes, by its payload, whichever agent's hook line runs"
		case d.Detect != nil:
			told = "yes, by its payload"
		case d.Runs != nil:
			told = "yes, by its hooks' environment, when it runs Claude Code's hooks"
		}
		writes := "none"
		if d.Settings != nil {
			writes = "yes (see Settings)"
		}
		t.add(d.Title, codes(append([]string{string(d.Agent)}, d.Aliases...)), told, writes)
	}
	return t.String()
}

// settingsTable: where and how install writes each agent's hooks.
func settingsTable() string {
	t := table{head: []string{"agent", "file (user scope; project scope)", "config home", "shape", "timeouts", "notes"}}
	for _, d := range agent.Installable() {
		a := install.Agents[string(d.Agent)]
		s := d.Settings
		files := "no user scope"
		if user, err := a.Path("user", "~", ".", "<binary>", nil); err == nil {
			files = code(filepath.ToSlash(user))
		}
		if project, err := a.Path("project", "~", ".", "<binary>", nil); err == nil {
			files += "; " + code(strings.TrimPrefix(filepath.ToSlash(project), "./"))
		} else {
			files += "; no project scope"
		}
		home := ""
		if s.HomeVar != "" {
			home = fmt.Sprintf("`$%s` (default `%s`)", s.HomeVar, hook.DefaultHome(s))
		}
		shape := s.Shape.String()
		if !s.Strict && s.Shape != agent.PluginFile && s.Shape != agent.EventFiles { // a plugin, a script: no JSON
			shape += "; comments allowed (and kept)"
		}
		timeouts := unit(s.Unit) + limits(s)
		if s.Shape == agent.EventFiles {
			timeouts = "none: a file has no place for one (the agent's own budget)"
		}
		t.add(d.Title, files,
			home, shape, timeouts, strings.Join(notes(s), "; "))
	}
	return t.String()
}

// setupTable is how hookwire setup finds each agent installed for the user.
func setupTable() string {
	t := table{head: []string{"agent", "a command on PATH", "or its settings directory"}}
	for _, d := range agent.Installable() {
		var cmds []string
		for _, c := range d.Settings.Commands {
			cmds = append(cmds, code(c))
		}
		dir := code(filepath.ToSlash(install.Agents[string(d.Agent)].Dir(nil, "~")))
		if v := d.Settings.HomeVar; v != "" {
			dir += fmt.Sprintf(" (moved by `$%s`)", v)
		}
		if owns := d.Settings.Owns; len(owns) > 0 {
			// A shared directory: only what the agent alone makes there.
			var names []string
			for _, n := range owns {
				names = append(names, code(n))
			}
			dir += ", shared: once it holds " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
		}
		t.add(d.Title, strings.Join(cmds, ", "), dir)
	}
	return t.String()
}

func unit(u time.Duration) string {
	switch u {
	case time.Second:
		return "seconds"
	case time.Millisecond:
		return "milliseconds"
	}
	return u.String()
}

// limits are the events whose timeout is the agent's own or capped.
func limits(s *agent.Settings) string {
	var out []string
	if len(s.WithoutTimeout) > 0 {
		out = append(out, codes(s.WithoutTimeout)+": none (the agent's own budget)")
	}
	events := sortStrings(mapKeys(s.MaxTimeout))
	for _, e := range events {
		out = append(out, fmt.Sprintf("%s: at most %s", code(e), dur(s.MaxTimeout[e])))
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}

func mapKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func notes(s *agent.Settings) []string {
	var out []string
	if !s.Unflagged {
		out = append(out, "each line says `--agent`")
	}
	if s.Positional {
		out = append(out, "each line names its event")
	}
	if len(s.Matched) > 0 {
		all := "*"
		if s.MatchAll != "" {
			all = s.MatchAll
		}
		out = append(out, "matcher `"+all+"` on "+codes(s.Matched))
	}
	for _, ev := range slices.Sorted(maps.Keys(s.Metadata)) {
		out = append(out, "`metadata` "+codes(slices.Sorted(maps.Keys(s.Metadata[ev])))+" on `"+ev+"`")
	}
	if s.Trust {
		out = append(out, "runs a hook only once you trust it (`doctor` checks)")
	}
	if s.RedactsEnv {
		out = append(out, "may keep variables from its hooks (`doctor` checks)")
	}
	if s.StatusLine {
		out = append(out, "a status line too (`--statusline`)")
	}
	return out
}

// eventsTable: each canonical kind, and each agent's names for it.
func eventsTable() string {
	t := table{head: []string{"kind", "the agents' event names"}}
	kinds := append(slices.Clip(agent.Kinds), agent.Unknown)
	for _, k := range kinds {
		var cells []string
		for _, d := range dialectsWithEvents() {
			var names []string
			for _, n := range d.Events {
				if n.Kind != k {
					continue
				}
				name := code(n.Name)
				if n.NoHook {
					name += " (not a hook)"
				}
				names = append(names, name)
			}
			if len(names) > 0 {
				cells = append(cells, d.Title+": "+strings.Join(names, ", "))
			}
		}
		kind := code(string(k))
		if k == agent.Unknown {
			kind = "nothing (known, and left alone)"
		}
		if len(cells) > 0 {
			t.add(kind, strings.Join(cells, "; "))
		}
	}
	return t.String()
}

// dialectsWithEvents are the dialects that name events, each once: a dialect
// with another's very events (a plugin that copies Claude Code's) is left out.
func dialectsWithEvents() []*agent.Dialect {
	var out []*agent.Dialect
	for _, d := range agent.Dialects() {
		if len(d.Events) == 0 || slices.ContainsFunc(out, func(o *agent.Dialect) bool { return reflect.DeepEqual(o.Events, d.Events) }) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// surfacesTable: the kinds each binary is installed on.
func surfacesTable() string {
	t := table{head: []string{"binary", "installed on the events of kinds", "hook timeout"}}
	for _, s := range surfaces() {
		if len(s.spec.Kinds) == 0 {
			t.add(code(s.Name), "none: it is for scripts and CI", "")
			continue
		}
		var kinds []string
		for _, k := range s.spec.Kinds {
			kinds = append(kinds, string(k))
		}
		timeout := dur(s.spec.Timeout)
		if len(s.spec.Approvals) > 0 {
			var ak []string
			for _, k := range s.spec.Approvals {
				ak = append(ak, string(k))
			}
			timeout += fmt.Sprintf("; %s on %s", dur(s.spec.Approval), codes(ak))
		}
		if s.spec.ApprovalAt != nil {
			timeout += fmt.Sprintf("; %s on the hooks a person answers on (%s)", dur(s.spec.Approval), approvalHooks(s.spec))
		}
		t.add(code(s.Name), codes(kinds), timeout)
	}
	return t.String()
}

// hooksTable: per agent, the hooks each binary installs, grouped by the
// binaries that install them.
func hooksTable() string {
	t := table{head: []string{"agent", "hooks", "installed by"}}
	all := surfaces()
	var hooked []surface
	for _, s := range all {
		if len(s.spec.Kinds) > 0 {
			hooked = append(hooked, s)
		}
	}
	for _, d := range agent.Installable() {
		a := install.Agents[string(d.Agent)]
		// by[event] are the binaries that hook it, in the agent's order.
		var events []string
		by := map[string][]string{}
		for _, n := range d.Events {
			for _, s := range hooked {
				if slices.Contains(s.spec.Events(a), n.Name) && !slices.Contains(by[n.Name], s.Name) {
					if len(by[n.Name]) == 0 {
						events = append(events, n.Name)
					}
					by[n.Name] = append(by[n.Name], s.Name)
				}
			}
		}
		// One row per set of binaries, the most common first.
		var groups [][]string // binaries
		rows := map[string][]string{}
		for _, e := range events {
			key := strings.Join(by[e], " ")
			if _, ok := rows[key]; !ok {
				groups = append(groups, by[e])
			}
			rows[key] = append(rows[key], e)
		}
		slices.SortStableFunc(groups, func(x, y []string) int { return len(y) - len(x) })
		title := d.Title
		for _, g := range groups {
			who := codes(g)
			if len(g) == len(hooked) {
				who = "every agent binary"
			}
			t.add(title, codes(rows[strings.Join(g, " ")]), who)
			title = ""
		}
	}
	return t.String()
}

// repliesTable: what a hook prints on stdout for each agent, per decision.
func repliesTable() string {
	t := table{head: []string{"agent", "on", "allow", "always allow", "deny", "no decision"}}
	decisions := []agent.Decision{agent.Allow, agent.Always, agent.Deny, agent.None}
	var silent []string
	for _, d := range agent.Dialects() {
		if d.Reply == nil {
			silent = append(silent, d.Title)
			continue
		}
		// Group the agent's events by the replies they get.
		var keys []string
		groups := map[string][]string{}
		replies := map[string][]string{}
		for _, n := range d.Events {
			if n.NoHook {
				continue
			}
			var rs []string
			for _, dec := range decisions {
				r := agent.Reply{Decision: dec, Suggestions: []byte(`["SUGGESTIONS"]`), By: "SURFACE"}
				rs = append(rs, reply(d.Reply(n.Name, r)))
			}
			key := strings.Join(rs, "\x00")
			if _, ok := groups[key]; !ok {
				keys = append(keys, key)
				replies[key] = rs
			}
			groups[key] = append(groups[key], n.Name)
		}
		// The group with the most events is "every other".
		slices.SortStableFunc(keys, func(x, y string) int { return len(groups[x]) - len(groups[y]) })
		title := d.Title
		for i, k := range keys {
			on := codes(groups[k])
			if i == len(keys)-1 && len(keys) > 1 {
				on = "every other event"
			} else if len(keys) == 1 {
				on = "every event"
			}
			t.add(append([]string{title, on}, replies[k]...)...)
			title = ""
		}
	}
	if len(silent) > 0 {
		t.add(strings.Join(silent, ", "), "every event", "nothing", "nothing", "nothing", "nothing")
	}
	return t.String()
}

func reply(s string) string {
	if s == "" {
		return "nothing"
	}
	return code(s)
}

// envTable: every variable, the binaries that read it, and what it means.
func envTable() string {
	type row struct {
		names    []string
		binaries []string
		helps    []string // "binary: help", or help alone when one
	}
	var rows []*row
	byName := map[string]*row{}
	add := func(v hook.Var, binary string) {
		r, ok := byName[v.Name]
		if !ok {
			r = &row{names: v.Names()}
			byName[v.Name] = r
			rows = append(rows, r)
		}
		r.binaries = append(r.binaries, binary)
		r.helps = append(r.helps, v.Help)
	}
	for _, v := range hook.Env {
		add(v, "all")
	}
	for _, s := range surfaces() {
		for _, v := range s.spec.Env {
			add(v, s.Name)
		}
	}
	add(hook.GraceVar, "hookwire") // hookwire's own: it serves the surfaces in one process
	for _, v := range hook.HomeVars() {
		add(v, "all")
	}
	for _, v := range hook.SessionVars() {
		add(v, "all")
	}
	t := table{head: []string{"variable", "binaries", "meaning"}}
	for _, r := range rows {
		var binaries, meanings []string
		for i, b := range r.binaries {
			if !strings.HasPrefix(b, "all") {
				b = code(b)
			}
			binaries = append(binaries, b)
			// One meaning shared by several binaries is said once.
			if i > 0 && r.helps[i] == r.helps[i-1] {
				continue
			}
			m := text(r.helps[i])
			if len(slices.Compact(slices.Clone(r.helps))) > 1 {
				m = binaries[i] + ": " + m
			}
			meanings = append(meanings, m)
		}
		t.add(codes(r.names), strings.Join(binaries, ", "), strings.Join(meanings, "; "))
	}
	return t.String()
}

// approvalHooks lists, per agent, the hooks a spec's ApprovalAt gives its
// approval timeout: "Claude Code's PreToolUse, …".
func approvalHooks(spec install.Spec) string {
	var out []string
	for _, d := range agent.Installable() {
		for _, n := range d.HookNames(spec.Kinds) {
			if spec.ApprovalAt(d, n) {
				out = append(out, d.Title+"'s `"+n+"`")
			}
		}
	}
	return strings.Join(out, ", ")
}
