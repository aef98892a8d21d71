package install

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/safefile"
)

// Setup is a combined binary's setup and doctor: every agent installed for
// this user × every surface present, one hook per event (install's, for
// the union of the surfaces chosen), and the check of what it wired. spec
// is the combined binary's spec for a list of surfaces (Union, with what
// it replaces); chosen are the surfaces --surfaces named (nil: none).
func Setup(binary string, surfaces []Surface, spec func(names []string) Spec, chosen []string) (setup, doctor hook.Command) {
	s := setupData{binary: binary, surfaces: surfaces, spec: spec, chosen: chosen}
	return hook.Command{Name: "setup", Help: "Find your agents and the surfaces here (--surfaces LIST picks them instead), show the plan, and wire each agent to every surface: one " + binary + " hook per event. --undo takes it all back.", CLI: &setupCmd{setupData: s}},
		hook.Command{Name: "doctor", Help: "Check every agent × surface pair setup wired, and say what to do for each that stays silent (with --surfaces LIST: those surfaces' own checks, for what install wrote).", CLI: &wiredDoctorCmd{setupData: s}}
}

type setupData struct {
	binary   string
	surfaces []Surface
	spec     func(names []string) Spec
	chosen   []string
}

type setupCmd struct {
	Yes       bool `help:"Apply the plan without asking."`
	DryRun    bool `name:"dry-run" help:"Show the plan and the change to each file as a diff; write nothing."`
	Undo      bool `help:"Give every file setup changed back as it was before the first setup."`
	Approvals bool `help:"Copilot CLI: also hook permissionRequest, as Coucou approval cards (see nb-hook install --approvals)."`
	// NoWarm is what a script written for an earlier hookwire may pass:
	// every hook runs hookwire itself now, so it changes nothing.
	NoWarm bool   `name:"no-warm" hidden:"" help:"Ignored: every hook runs hookwire itself."`
	Path   string `placeholder:"PATH" help:"The path of the binary the hooks run (default: this one)."`
	setupData
}

// setupState is what setup keeps in the user's state directory: what it
// wired (a second run keeps it, even when a surface is not running then),
// and every file it changed as it was before the first setup, for --undo.
type setupState struct {
	Binary    string     `json:"binary"`
	Agents    []string   `json:"agents"`
	Surfaces  []string   `json:"surfaces"`
	Approvals bool       `json:"approvals,omitempty"`
	Files     []keptFile `json:"files"`
}

// keptFile is one file setup changed: its bytes before the first setup
// (Existed false: there was none) and a hash of what setup last left there
// ("" for no file), which tells undo whether someone changed it since.
type keptFile struct {
	Path     string      `json:"path"`
	Agent    string      `json:"agent"`
	Role     string      `json:"role"` // hooks, trust
	Existed  bool        `json:"existed"`
	Mode     fs.FileMode `json:"mode,omitempty"`
	Original []byte      `json:"original,omitempty"`
	Written  string      `json:"written"`
}

// stateFile is where setup keeps its state: $XDG_STATE_HOME/hookwire, else
// ~/.local/state/hookwire.
func stateFile(getenv func(string) string, home string) string {
	dir := getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "hookwire", "setup.json")
}

func loadState(path string) (*setupState, error) {
	b, err := safefile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &setupState{}, nil
	}
	if err != nil {
		return nil, unsafe(err)
	}
	var st setupState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %v: move it away to start afresh (it holds what --undo gives back)", path, err)
	}
	return &st, nil
}

// save writes the state, in a directory of the user's only.
func (st *setupState) save(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory: setup keeps what --undo needs there", dir)
	}
	if uid, ok := safefile.Owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not you: setup keeps what --undo needs there", dir, uid)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return unsafe(safefile.WriteFile(path, append(b, '\n'), 0o600))
}

func (st *setupState) kept(path string) *keptFile {
	for i := range st.Files {
		if st.Files[i].Path == path {
			return &st.Files[i]
		}
	}
	return nil
}

func digest(b []byte) string {
	if b == nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A change is one file setup writes (New nil: removes).
type change struct {
	path     string
	old, new []byte
	mode     fs.FileMode
	role     string
	what     string // for the plan: what it does
}

// found says whether agent a is installed for this user, and what says
// so: one of its commands on PATH, or the directory its settings are in
// (under its variable when set: CLAUDE_CONFIG_DIR, CODEX_HOME, …), or in a
// shared one, a name there that is the agent's own (Settings.Owns).
func (a *Agent) found(getenv func(string) string, home string) (bool, string) {
	var why []string
	for _, c := range a.Commands {
		if _, err := exec.LookPath(c); err == nil {
			why = append(why, c+" on PATH")
			break
		}
	}
	if dir := a.Dir(getenv, home); dir != "" && len(a.Owns) == 0 {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			why = append(why, dir)
		}
	} else if dir != "" {
		for _, name := range a.Owns {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				why = append(why, filepath.Join(dir, name))
				break
			}
		}
	}
	return len(why) > 0, strings.Join(why, ", ")
}

// Dir is the directory of the agent's own that holds its user settings (for
// a directory of hooks or plugins, the one that holds that).
func (a *Agent) Dir(getenv func(string) string, home string) string {
	p, err := a.Path("user", home, "", "hookwire", getenv)
	if err != nil {
		return ""
	}
	p = filepath.Dir(p)
	if a.OwnFile() {
		p = filepath.Dir(p)
	}
	return p
}

// plan is what one run of setup would do.
type plan struct {
	st        *setupState
	bin       string
	agents    []*Agent
	foundBy   map[string]string
	missing   []string // agents not found, by title
	borrowing []string // agents found that run the hooks of another found: none of their own
	presence  map[string]Presence
	chosen    []string
	changes   map[string][]change // by agent
	problems  map[string]error    // agents that cannot be wired, and why
	notes     []string            // what a person must do after
}

func (c *setupCmd) Run(con *hook.Console) error {
	home, _ := os.UserHomeDir()
	if home == "" {
		return fmt.Errorf("no home directory: setup wires the agents of a user")
	}
	statePath := stateFile(con.Getenv, home)
	st, err := loadState(statePath)
	if err != nil {
		return err
	}
	if c.Undo {
		return c.undo(con, st, statePath)
	}
	bin := c.Path
	if bin == "" {
		if bin, err = self(); err != nil {
			return err
		}
	}
	p, err := c.plan(con.Getenv, home, st, bin)
	if err != nil {
		return err
	}
	c.show(con, p, home)
	if len(p.agents) == 0 {
		return fmt.Errorf("no agent found: nothing to set up")
	}
	if len(p.chosen) == 0 {
		return fmt.Errorf("no surface found: start the ones you use, or name them with --surfaces, then run setup again")
	}
	n := 0
	for _, cs := range p.changes {
		n += len(cs)
	}
	if n == 0 {
		fmt.Fprintln(con.Out, "\nNothing to change: everything above is wired already.")
		c.showNotes(con, p)
		return nil
	}
	if c.DryRun {
		fmt.Fprintln(con.Out)
		for _, a := range p.agents {
			for _, ch := range p.changes[a.Name] {
				con.Out.Write(diff.Diff(ch.path, ch.old, ch.path+" (after)", ch.new))
			}
		}
		return nil
	}
	if !c.Yes {
		if !isatty.IsTerminal(os.Stdin.Fd()) && !isatty.IsCygwinTerminal(os.Stdin.Fd()) {
			return fmt.Errorf("no terminal to confirm on: run setup --yes to apply this plan (--dry-run shows the diffs); nothing was changed")
		}
		fmt.Fprint(con.Out, "\nApply this plan? [y/N] ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(con.Out, "Nothing was changed.")
			return nil
		}
	}
	return c.apply(con, p, statePath)
}

// plan finds the agents and the surfaces, and computes every file's change.
func (c *setupCmd) plan(getenv func(string) string, home string, st *setupState, bin string) (*plan, error) {
	p := &plan{st: st, bin: bin, foundBy: map[string]string{}, presence: map[string]Presence{},
		changes: map[string][]change{}, problems: map[string]error{}}
	for _, name := range AgentNames() {
		a := Agents[name]
		if len(a.User) == 0 {
			continue // setup writes user settings, and it has none (Devin CLI's are a project's)
		}
		ok, why := a.found(getenv, home)
		switch {
		case ok:
			p.foundBy[name] = why
		case slices.Contains(st.Agents, name):
			p.foundBy[name] = "wired by an earlier setup"
		default:
			p.missing = append(p.missing, a.Title())
			continue
		}
		p.agents = append(p.agents, a)
	}
	found := slices.Clone(p.agents)
	p.agents = slices.DeleteFunc(p.agents, func(a *Agent) bool {
		// An agent that runs another's hooks, told apart (Grok Build runs
		// Claude Code's): hooks of its own would deliver each event twice.
		for _, b := range found {
			if slices.Contains(a.Borrows, agent.Agent(b.Name)) {
				p.borrowing = append(p.borrowing, a.Title()+" (runs "+b.Title()+"'s)")
				return true
			}
		}
		return false
	})
	for _, s := range c.surfaces {
		p.presence[s.Name] = s.find(getenv)
	}
	if c.chosen != nil {
		for _, n := range c.chosen {
			if !slices.ContainsFunc(c.surfaces, func(s Surface) bool { return s.Name == n }) {
				return nil, fmt.Errorf("--surfaces: %q is not a surface: %s", n, strings.Join(c.names(), ", "))
			}
		}
	}
	// The surfaces named, else those present and those wired before (one
	// not running now stays wired), in the binary's order.
	for _, s := range c.surfaces {
		if c.chosen != nil && slices.Contains(c.chosen, s.Name) ||
			c.chosen == nil && (p.presence[s.Name].Found || slices.Contains(st.Surfaces, s.Name)) {
			p.chosen = append(p.chosen, s.Name)
		}
	}
	if len(p.chosen) == 0 {
		return p, nil
	}
	spec := c.spec(p.chosen)
	for _, a := range p.agents {
		s := spec
		if (c.Approvals || st.Approvals) && len(s.AskEvents(a)) > 0 {
			s.Asking = true
		}
		cs, err := c.agentChanges(getenv, home, a, s, bin, p)
		if err != nil {
			p.problems[a.Name] = err
			continue
		}
		p.changes[a.Name] = cs
	}
	return p, nil
}

// formerNote tells a plan that a change rewrites the hook lines of
// s.Former (hookwire-client's, which earlier setups wrote) to s.Binary.
func (s Spec) formerNote(a *Agent, old []byte) string {
	if s.Former == "" || old == nil {
		return ""
	}
	if a.OwnFile() || a.Shape == agent.EventFiles {
		if !bytes.Contains(old, []byte(s.Former)) {
			return ""
		}
	} else if !(Spec{Binary: s.Former}).installedIn(a, old) {
		return ""
	}
	return ", in place of the lines that ran " + s.Former
}

func (c *setupCmd) names() []string {
	var out []string
	for _, s := range c.surfaces {
		out = append(out, s.Name)
	}
	return out
}

// agentChanges are the files to write for agent a: its settings with one
// hook per event running bin for the surfaces chosen, in place of the
// surfaces' own binaries' entries (or files), and its trust step.
func (c *setupCmd) agentChanges(getenv func(string) string, home string, a *Agent, spec Spec, bin string, p *plan) ([]change, error) {
	path, err := a.Path("user", home, "", spec.Binary, getenv)
	if err != nil {
		return nil, err
	}
	path = ownLink(path)
	var out []change
	add := func(path string, old, new []byte, mode fs.FileMode, role, what string) {
		if !bytes.Equal(old, new) || (old == nil) != (new == nil) {
			out = append(out, change{path: path, old: old, new: new, mode: mode, role: role, what: what})
		}
	}
	switch {
	case a.Shape == agent.EventFiles:
		cmds := spec.eventCommands(a, bin)
		for _, n := range a.dialect.Events {
			if n.NoHook || n.Kind == agent.Unknown {
				continue
			}
			file, old, err := spec.eventPath(a, path, n.Name)
			if errors.Is(err, errNotOurs) {
				if cmds[n.Name] == "" {
					continue
				}
				return nil, fmt.Errorf("%s and the same name with %s are hooks of your own, which setup does not replace or chain: add to one of them a line that runs: %s",
					file, strings.Join(eventExts[1:], ", "), cmds[n.Name])
			}
			if err != nil {
				return nil, err
			}
			updated, err := spec.eventFile(a, n.Name, old, cmds[n.Name])
			if err != nil {
				return nil, err
			}
			add(file, old, updated, 0o755, "hooks", "the "+n.Name+" hook")
		}
		return out, nil
	case a.OwnFile():
		old, err := readSettings(path)
		if err != nil {
			return nil, err
		}
		updated, err := spec.Install(a, old, bin)
		if err != nil {
			return nil, err
		}
		add(path, old, updated, 0o600, "hooks", fmt.Sprintf("%d hooks, each for every surface chosen", len(spec.Entries(a, bin)))+spec.formerNote(a, old))
		// Each surface's own file would have the agent run it too.
		for _, name := range p.chosen {
			own := filepath.Join(filepath.Dir(path), a.FileName(name))
			if old, err := readSettings(own); err != nil {
				return nil, err
			} else if old != nil {
				add(own, old, nil, 0, "hooks", name+"'s own hooks, which "+spec.Binary+" replaces")
			}
		}
		return out, nil
	}
	old, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	updated, err := spec.Install(a, old, bin)
	if err != nil {
		return nil, refused(path, a, err)
	}
	if a.Shape == agent.Named {
		// One key per binary: the surfaces' own go.
		for _, name := range p.chosen {
			if updated, err = (Spec{Binary: name}).Uninstall(a, updated); err != nil {
				return nil, refused(path, a, err)
			}
		}
	}
	what := fmt.Sprintf("%d hooks run %s", len(spec.Entries(a, bin)), spec.Binary) + spec.formerNote(a, old)
	if a.RedactsEnv {
		// Gemini's allowlist step: the variables set here that its
		// redaction would keep from the hooks are allowed.
		lost, blocked, secret, _, on := spec.geminiKept(updated, getenv)
		if on && len(lost) > 0 {
			if updated, err = geminiAllowing(a, updated, lost); err != nil {
				return nil, refused(path, a, err)
			}
			what += ", and its environment redaction allows " + strings.Join(lost, ", ")
		}
		if len(blocked) > 0 {
			p.notes = append(p.notes, fmt.Sprintf("%s blocks %s (security.environmentVariableRedaction.blocked), which %s reads: unblock them there for its hooks to see them", path, strings.Join(blocked, ", "), spec.Binary))
		}
		if len(secret) > 0 {
			p.notes = append(p.notes, fmt.Sprintf("Gemini CLI strips %s from hooks whatever its settings say: set it in each %s hook's own \"env\" map in %s", strings.Join(secret, ", "), spec.Binary, path))
		}
	}
	if old != nil && !bytes.Equal(old, updated) {
		if replaced := c.replaced(a, old, p.chosen); len(replaced) > 0 {
			what += ", in place of " + strings.Join(replaced, ", ")
		}
	}
	add(path, old, updated, 0o600, "hooks", what)
	if a.Trust {
		config := filepath.Join(filepath.Dir(path), "config.toml")
		cold, err := readSettings(config)
		if err != nil {
			return nil, err
		}
		trusted, manual, err := spec.codexTrusted(path, updated, cold)
		if err != nil {
			return nil, err
		}
		if manual > 0 {
			p.notes = append(p.notes, fmt.Sprintf(a.TrustStep+" (%s holds their trust in a form setup does not edit)", spec.Binary, config))
		}
		add(config, cold, trusted, 0o600, "trust", "trusts "+spec.Binary+"'s hooks, as Codex's /hooks would")
	}
	return out, nil
}

// replaced are the surfaces' own binaries whose entries data holds.
func (c *setupCmd) replaced(a *Agent, data []byte, chosen []string) []string {
	var out []string
	for _, name := range chosen {
		for _, s := range c.surfaces {
			if s.Name == name && s.Spec.installedIn(a, data) {
				out = append(out, name+"'s entries")
			}
		}
	}
	return out
}

// show prints the plan: the agents found, the surfaces, the table of
// agent × surface, the files.
func (c *setupCmd) show(con *hook.Console, p *plan, home string) {
	w := con.Out
	fmt.Fprintln(w, "Agents")
	var rows [][]string
	for _, a := range p.agents {
		path, _ := a.Path("user", home, "", c.binary, con.Getenv)
		rows = append(rows, []string{"  " + a.Title(), path, "(" + p.foundBy[a.Name] + ")"})
	}
	if len(rows) == 0 {
		rows = append(rows, []string{"  none found"})
	}
	io.WriteString(w, table(rows))
	if len(p.missing) > 0 {
		fmt.Fprintf(w, "  not found (none of their commands on PATH, no settings directory): %s\n", strings.Join(p.missing, ", "))
	}
	if len(p.borrowing) > 0 {
		fmt.Fprintf(w, "  nothing of their own (they run another agent's hooks, told apart: each event once): %s\n", strings.Join(p.borrowing, ", "))
	}
	fmt.Fprintln(w, "\nSurfaces")
	rows = nil
	for _, s := range c.surfaces {
		pr := p.presence[s.Name]
		state := "found: " + pr.Why
		switch {
		case !pr.Found && slices.Contains(p.chosen, s.Name) && c.chosen != nil:
			state = "not found (" + pr.Why + "), wired as --surfaces asks"
		case !pr.Found && slices.Contains(p.chosen, s.Name):
			state = "not found now (" + pr.Why + "), kept: an earlier setup wired it"
		case !pr.Found:
			state = "missing: " + pr.Why
		case c.chosen != nil && !slices.Contains(c.chosen, s.Name):
			state += " (not in --surfaces)"
		}
		rows = append(rows, []string{"  " + s.Title, s.Name, state})
	}
	io.WriteString(w, table(rows))
	if len(p.agents) == 0 || len(p.chosen) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPlan: one %s hook per event, for %s\n", c.binary, strings.Join(p.chosen, ","))
	fmt.Fprintf(w, "  each runs %s\n", p.bin)
	head := []string{"  "}
	for _, s := range c.surfaces {
		head = append(head, s.Title)
	}
	rows = [][]string{head}
	for _, a := range p.agents {
		row := []string{"  " + a.Title()}
		for _, s := range c.surfaces {
			cell := "-"
			switch {
			case p.problems[a.Name] != nil:
				cell = "cannot"
			case len(s.Spec.Events(a)) == 0:
				cell = "n/a"
			case !slices.Contains(p.chosen, s.Name):
			case len(p.changes[a.Name]) == 0 || slices.Contains(p.st.Agents, a.Name) && slices.Contains(p.st.Surfaces, s.Name):
				cell = "wired"
			default:
				cell = "add"
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	io.WriteString(w, table(rows))
	fmt.Fprintln(w, "  (add: wired now; wired: already; -: not chosen, see Surfaces)")
	fmt.Fprintln(w, "\nFiles")
	for _, a := range p.agents {
		if err := p.problems[a.Name]; err != nil {
			fmt.Fprintf(w, "  %s: cannot: %v\n", a.Title(), err)
			continue
		}
		if len(p.changes[a.Name]) == 0 {
			path, _ := a.Path("user", home, "", c.binary, con.Getenv)
			fmt.Fprintf(w, "  %s: unchanged\n", path)
		}
		if a.Shape == agent.EventFiles && len(p.changes[a.Name]) > 0 {
			// One line for the folder, not one per event.
			dir, _ := a.Path("user", home, "", c.binary, con.Getenv)
			fmt.Fprintf(w, "  %s: write %d hook files, one per event, each with a line that runs %s\n", dir, len(p.changes[a.Name]), c.spec(p.chosen).Binary)
			continue
		}
		for _, ch := range p.changes[a.Name] {
			verb := "update"
			switch {
			case ch.old == nil:
				verb = "create"
			case ch.new == nil:
				verb = "remove"
			}
			fmt.Fprintf(w, "  %s: %s: %s\n", ch.path, verb, ch.what)
		}
	}
}

func (c *setupCmd) showNotes(con *hook.Console, p *plan) {
	for _, n := range p.notes {
		fmt.Fprintln(con.Out, "next: "+n)
	}
}

// table lays rows out in columns, two spaces apart.
func table(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, cell := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, cell := range r {
			line.WriteString(cell)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-len([]rune(cell))+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// apply writes the plan: each file's state before the first setup is kept
// first (so that nothing is written that --undo could not give back), then
// the files, then what setup last wrote.
func (c *setupCmd) apply(con *hook.Console, p *plan, statePath string) error {
	st := p.st
	var all []change
	for _, a := range p.agents {
		for _, ch := range p.changes[a.Name] {
			if st.kept(ch.path) == nil {
				k := keptFile{Path: ch.path, Agent: a.Name, Role: ch.role, Existed: ch.old != nil, Original: ch.old}
				if fi, err := os.Stat(ch.path); err == nil {
					k.Mode = fi.Mode().Perm()
				}
				st.Files = append(st.Files, k)
			}
			all = append(all, ch)
		}
	}
	st.Binary = p.bin
	st.Surfaces = p.chosen
	for _, a := range p.agents {
		if p.problems[a.Name] == nil && !slices.Contains(st.Agents, a.Name) {
			st.Agents = append(st.Agents, a.Name)
		}
	}
	st.Approvals = st.Approvals || c.Approvals
	if err := st.save(statePath); err != nil {
		return fmt.Errorf("keeping what --undo needs: %w; nothing was changed", err)
	}
	fmt.Fprintln(con.Out)
	for _, ch := range all {
		if err := writeChange(ch); err != nil {
			st.save(statePath) // what was written, for --undo
			return fmt.Errorf("%s: %w (the files before it are written; setup --undo gives them back)", ch.path, err)
		}
		st.kept(ch.path).Written = digest(ch.new)
		verb := "written"
		if ch.new == nil {
			verb = "removed"
		}
		fmt.Fprintf(con.Out, "%s: %s\n", ch.path, verb)
	}
	if err := st.save(statePath); err != nil {
		return err
	}
	fmt.Fprintf(con.Out, "Done: %s setup --undo gives every file back as it was; %s doctor checks what is wired.\n", c.binary, c.binary)
	c.showNotes(con, p)
	return nil
}

// writeChange writes one file by rename, never through a link, keeping its
// mode (a new file gets ch.mode).
func writeChange(ch change) error {
	if ch.new == nil {
		if err := os.Remove(ch.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	mode := ch.mode
	if fi, err := safefile.Lcheck(ch.path); err != nil {
		return unsafe(err)
	} else if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(ch.path), 0o700); err != nil {
		return err
	}
	if err := safefile.WriteFile(ch.path, ch.new, mode); err != nil {
		return unsafe(err)
	}
	return os.Chmod(ch.path, mode) // whatever the umask
}

// undo gives each file back as it was before the first setup; a file
// changed since setup last wrote it (by a person, by the agent) is not
// overwritten: only the binary's hooks are taken out of it, and its
// earlier bytes are kept beside it.
func (c *setupCmd) undo(con *hook.Console, st *setupState, statePath string) error {
	if len(st.Files) == 0 {
		fmt.Fprintf(con.Out, "Nothing to undo: setup has changed no file (%s)\n", statePath)
		return nil
	}
	var changes []change
	var notes []string
	for i := len(st.Files) - 1; i >= 0; i-- {
		k := st.Files[i]
		cur, err := readSettings(k.Path)
		if err != nil {
			return err
		}
		var orig []byte
		if k.Existed {
			orig = k.Original
			if orig == nil {
				orig = []byte{}
			}
		}
		if digest(cur) == k.Written {
			if !bytes.Equal(cur, orig) || (cur == nil) != (orig == nil) {
				changes = append(changes, change{path: k.Path, old: cur, new: orig, mode: k.Mode})
			}
			continue
		}
		// Changed since: take our hooks out, keep what it was.
		a := Agents[k.Agent]
		if k.Role != "hooks" || a == nil || cur == nil {
			notes = append(notes, fmt.Sprintf("%s changed since setup wrote it: left as it is", k.Path))
			continue
		}
		ours := Spec{Binary: c.binary}
		var updated []byte
		switch {
		case a.Shape == agent.EventFiles:
			updated, err = ours.eventFile(a, eventOf(k.Path), cur, "")
		case a.OwnFile():
			notes = append(notes, fmt.Sprintf("%s changed since setup wrote it: left as it is", k.Path))
			continue
		default:
			updated, err = ours.Uninstall(a, cur)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s changed since setup wrote it, and cannot be read (%v): left as it is", k.Path, err))
			continue
		}
		if !bytes.Equal(cur, updated) || (updated == nil) != (cur == nil) {
			changes = append(changes, change{path: k.Path, old: cur, new: updated, mode: k.Mode})
		}
		if k.Existed {
			keep := k.Path + ".before-hookwire-setup"
			changes = append(changes, change{path: keep, new: orig, mode: 0o600})
			notes = append(notes, fmt.Sprintf("%s changed since setup wrote it: only %s's hooks were taken out; the file as it was before setup is %s", k.Path, c.binary, keep))
		}
	}
	if c.DryRun {
		for _, ch := range changes {
			con.Out.Write(diff.Diff(ch.path, ch.old, ch.path+" (after)", ch.new))
		}
		for _, n := range notes {
			fmt.Fprintln(con.Out, n)
		}
		return nil
	}
	for _, ch := range changes {
		if err := writeChange(ch); err != nil {
			return fmt.Errorf("%s: %w", ch.path, err)
		}
		verb := "given back"
		if ch.new == nil {
			verb = "removed (there was none before setup)"
		}
		fmt.Fprintf(con.Out, "%s: %s\n", ch.path, verb)
	}
	for _, n := range notes {
		fmt.Fprintln(con.Out, n)
	}
	if err := os.Remove(statePath); err != nil {
		return err
	}
	os.Remove(filepath.Dir(statePath)) // when empty: setup leaves nothing behind
	fmt.Fprintln(con.Out, "Undone: the next setup starts afresh.")
	return nil
}
