package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/safefile"
)

// Commands are the install, uninstall, snippet and doctor subcommands of a
// binary. checks are its own doctor checks (its target), may be nil.
func Commands(spec Spec, checks ...Check) []hook.Command {
	return []hook.Command{
		{Name: "install", Help: "Add this binary's hooks to an agent's settings.", CLI: &installCmd{spec: spec}},
		{Name: "uninstall", Help: "Remove this binary's hooks from an agent's settings.", CLI: &uninstallCmd{spec: spec}},
		{Name: "snippet", Help: "Print the settings to paste by hand.", CLI: &snippetCmd{spec: spec}},
		{Name: "doctor", Help: "Check the installation, and say how to fix what is wrong.", CLI: &doctorCmd{spec: spec, checks: checks}},
	}
}

// where are the flags install and uninstall share.
type where struct {
	Agent    string `required:"" enum:"${agents}" help:"The agent: ${enum}."`
	Settings string `placeholder:"PATH" help:"The settings file (default: the agent's own, for --scope)."`
	Scope    string `default:"user" enum:"user,project" help:"user (your home) or project (this directory)."`
	DryRun   bool   `name:"dry-run" help:"Show the change as a diff, and write nothing."`
}

func (w where) resolve(spec Spec, getenv func(string) string) (*Agent, string, error) {
	a := Agents[w.Agent]
	if len(spec.Events(a)) == 0 {
		return nil, "", fmt.Errorf("%s has no hooks for %s%s", spec.Binary, a.Name, spec.noHooks())
	}
	if w.Settings != "" {
		return a, ownLink(w.Settings), nil
	}
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	path, err := a.Path(w.Scope, home, cwd, spec.Binary, getenv)
	if err != nil {
		return a, path, err
	}
	if w.Scope == "project" {
		dir := filepath.Dir(path)
		if a.Shape == agent.EventFiles {
			dir = path // the hooks folder itself
		}
		return a, path, inProject(cwd, dir)
	}
	return a, ownLink(path), nil
}

// ownLink is the file a settings link in the user's own scope points to:
// dotfile managers (stow, chezmoi's symlink mode) keep ~/.claude/settings.json
// as a link into the user's dotfiles, and install edits that file, by rename
// beside it, leaving the link in place. The file must still be a regular
// file of the user's (safefile checks it when it is read and written). A
// project's settings are never followed: a repository is not the user's to
// trust (inProject, and safefile refuses the link itself).
func ownLink(path string) string {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		return target
	}
	return path // a dangling link: refused when read, with the reason
}

// inProject refuses a project's settings directory that a link takes out
// of the project: a repository is not the user's to trust, and one whose
// .gemini is a link to ~/.config/something would have install write there.
// Each directory from the project down that exists must be a real one.
func inProject(project, dir string) error {
	rel, err := filepath.Rel(project, dir)
	if err != nil {
		return err
	}
	p := project
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // install makes the rest
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			why := "is not a directory"
			if fi.Mode()&fs.ModeSymlink != 0 {
				why = "is a symbolic link"
				if to, err := os.Readlink(p); err == nil {
					why += " to " + to
				}
			}
			return fmt.Errorf("%s %s: a project's settings are written only inside the project; nothing was changed", p, why)
		}
	}
	return nil
}

func (s Spec) noHooks() string {
	if len(s.Kinds) == 0 {
		return ": it is run by scripts, not by an agent's hooks"
	}
	return ""
}

type installCmd struct {
	where
	Path       string `placeholder:"PATH" help:"The path of the binary the hooks run (default: this one)."`
	StatusLine bool   `name:"statusline" help:"Claude Code: also make this binary the status line, chaining the one there was (nb-hook: the plan-usage pill)."`
	Approvals  bool   `help:"Copilot CLI: also hook permissionRequest, which it fires for every tool that is not read-only, and show each as an approval card (nb-hook; without it, install takes that hook out)."`
	spec       Spec
}

// asking is spec with the hooks of its Ask kinds, when --approvals asks
// for them; an agent without such events, or a binary that asks nothing,
// is refused rather than silently given none.
func asking(spec Spec, a *Agent, approvals bool) (Spec, error) {
	if !approvals {
		return spec, nil
	}
	switch {
	case len(spec.Ask) == 0:
		return spec, fmt.Errorf("--approvals: %s shows no approval cards (nb-hook does)", spec.Binary)
	case len(spec.AskEvents(a)) == 0:
		return spec, fmt.Errorf("--approvals: %s asks a person through the hooks %s installs already; only Copilot CLI needs it", a.Title(), spec.Binary)
	}
	spec.Asking = true
	return spec, nil
}

func (c *installCmd) Run(con *hook.Console) error {
	a, settings, err := c.resolve(c.spec, con.Getenv)
	if err != nil {
		return err
	}
	if c.spec, err = asking(c.spec, a, c.Approvals); err != nil {
		return err
	}
	bin := c.Path
	if bin == "" {
		if bin, err = self(); err != nil {
			return err
		}
	}
	if a.Shape == agent.EventFiles {
		return c.spec.eventFiles(con, a, settings, c.spec.eventCommands(a, bin), c.DryRun)
	}
	old, err := readSettings(settings)
	if err != nil {
		return err
	}
	updated, err := c.spec.Install(a, old, bin)
	if err != nil {
		return refused(settings, a, err)
	}
	n := len(c.spec.Entries(a, bin))
	done := fmt.Sprintf("%s: %d %s hooks run %s", settings, n, a.Name, bin)
	if c.StatusLine {
		switch {
		case c.spec.StatusLine.Flag == "":
			return fmt.Errorf("%s has no status line mode", c.spec.Binary)
		case !a.StatusLine:
			return fmt.Errorf("--statusline: %s has no status line command", a.Title())
		}
		if updated, err = c.spec.InstallStatusLine(updated, bin); err != nil {
			return fmt.Errorf("%s: %v: a status line is an object with a command; nothing was changed", settings, err)
		}
		done += ", and so does its status line"
	}
	err = commit(con, settings, old, updated, c.DryRun, done)
	if err == nil && a.Trust && !c.DryRun && !bytes.Equal(old, updated) {
		fmt.Fprintf(con.Out, "next: "+a.TrustStep+"; %s doctor checks it\n", c.spec.Binary, c.spec.Binary)
	}
	return err
}

type uninstallCmd struct {
	where
	spec Spec
}

func (c *uninstallCmd) Run(con *hook.Console) error {
	a, settings, err := c.resolve(c.spec, con.Getenv)
	if err != nil {
		return err
	}
	if a.Shape == agent.EventFiles {
		return c.spec.eventFiles(con, a, settings, nil, c.DryRun)
	}
	old, err := readSettings(settings)
	if err != nil {
		return err
	}
	if old == nil {
		fmt.Fprintf(con.Out, "%s: nothing to remove (no such file)\n", settings)
		return nil
	}
	if a.OwnFile() {
		if c.DryRun {
			fmt.Fprintf(con.Out, "would remove %s\n", settings)
			return nil
		}
		if err := os.Remove(settings); err != nil {
			return err
		}
		fmt.Fprintf(con.Out, "%s: removed\n", settings)
		return nil
	}
	updated, err := c.spec.Uninstall(a, old)
	if err == nil && a.StatusLine && c.spec.StatusLine.Flag != "" {
		updated, err = c.spec.UninstallStatusLine(updated) // the one it chained comes back
	}
	if err != nil {
		return refused(settings, a, err)
	}
	return commit(con, settings, old, updated, c.DryRun, fmt.Sprintf("%s: %s's hooks removed", settings, c.spec.Binary))
}

type snippetCmd struct {
	Agent     string `required:"" enum:"${agents}" help:"The agent: ${enum}."`
	Path      string `placeholder:"PATH" help:"The path of the binary the hooks run (default: this one)."`
	Approvals bool   `help:"Copilot CLI: also hook permissionRequest, as install --approvals does."`
	spec      Spec
}

func (c *snippetCmd) Run(con *hook.Console) error {
	a := Agents[c.Agent]
	if len(c.spec.Events(a)) == 0 {
		return fmt.Errorf("%s has no hooks for %s%s", c.spec.Binary, a.Name, c.spec.noHooks())
	}
	var err error
	if c.spec, err = asking(c.spec, a, c.Approvals); err != nil {
		return err
	}
	bin := c.Path
	if bin == "" {
		var err error
		if bin, err = self(); err != nil {
			return err
		}
	}
	if a.Shape == agent.EventFiles {
		_, err := con.Out.Write(c.spec.eventSnippet(a, bin))
		return err
	}
	out, err := c.spec.Install(a, nil, bin)
	if err != nil {
		return err
	}
	_, err = con.Out.Write(out)
	return err
}

// self is the absolute path of the running binary, as the user reaches it.
func self() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this binary is: give --path")
	}
	return p, nil
}

// readSettings reads the settings file, never through a link (a repository
// could link its settings to a file of the user's, which install would copy
// into the repository as a backup), and only a regular file of the user's.
func readSettings(path string) ([]byte, error) {
	b, err := safefile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, unsafe(err)
}

// unsafe says what to do about a file install will not touch.
func unsafe(err error) error {
	if errors.Is(err, safefile.ErrUnsafe) {
		return fmt.Errorf("%w: install reads and writes only a regular file of yours, never through a link in a project; nothing was changed", err)
	}
	return err
}

func refused(path string, a *Agent, err error) error {
	kind := "strict JSON"
	switch {
	case a.Shape == agent.Tables:
		kind = "TOML"
	case !a.Strict:
		kind = "JSON with comments"
	}
	return fmt.Errorf("%s: %v\n%s reads this file as %s and would not read it either; fix it, or name another file with --settings. Nothing was changed", path, err, a.Name, kind)
}

// commit writes updated over old (atomically, old kept as a backup), or
// shows the diff in a dry run.
func commit(con *hook.Console, path string, old, updated []byte, dryRun bool, done string) error {
	if bytes.Equal(old, updated) {
		fmt.Fprintf(con.Out, "%s: already up to date\n", path)
		return nil
	}
	if dryRun {
		con.Out.Write(diff.Diff(path, old, path+" (after)", updated))
		return nil
	}
	mode := fs.FileMode(0o600)
	if fi, err := safefile.Lcheck(path); err != nil {
		return unsafe(err)
	} else if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// The backup, like the settings, is a new file renamed into place: one
	// a repository planted (a link to ~/.ssh/authorized_keys) is refused,
	// and could only have been replaced, never written through.
	backup := ""
	if old != nil {
		backup = path + ".hookwire.bak"
		if err := safefile.WriteFile(backup, old, mode); err != nil {
			if errors.Is(err, safefile.ErrUnsafe) {
				return fmt.Errorf("keeping a backup: %w: install writes only a regular file of yours, never through a link; remove it and install again. Nothing was changed", err)
			}
			return fmt.Errorf("keeping a backup: %w", err)
		}
	}
	if err := safefile.WriteFile(path, updated, mode); err != nil {
		return unsafe(err)
	}
	if backup != "" {
		done += " (the previous file is " + backup + ")"
	}
	fmt.Fprintln(con.Out, strings.TrimSpace(done))
	return nil
}
