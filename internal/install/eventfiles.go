package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/safefile"
)

// Shape EventFiles (Cline CLI): the agent runs every executable in its hooks
// directory named after an event, one file per name (an extension aside).
// So the file is hookwire's, shared by the binaries: a #!/bin/sh script that
// reads the payload once and hands it to each binary's line, with the
// event's name as an argument (the payload does not say which event it is).
// Install adds or updates this binary's line, uninstall takes it out, and the
// file goes with the last line. A file of that name that is not hookwire's
// is the user's own hook: install never touches nor chains it (a chained
// hook would no longer get stdin whole nor answer alone on stdout, and a
// PreToolUse hook's answer is the whole of its stdout). Cline runs every
// file whose stem is the event's name, with an extension it knows or none
// (its hooks' loader, cline 3.0.65), each by its shebang: so hookwire's
// file goes beside the user's, under the same stem with an extension
// (eventPath), and each gets the event whole.

// eventHeader begins every event file of hookwire's; its second line is how
// install knows the file is its own.
const eventHeader = "#!/bin/sh\n" +
	"# hookwire: %s runs this file for its %s hook. Each line after `in=$(cat)` hands\n" +
	"# the event to one hookwire binary; its install and uninstall edit them.\n" +
	"in=$(cat)\n"

// eventLine is how a binary's line begins: the payload on its stdin.
const eventLine = `printf '%s\n' "$in" | `

// eventFile is the file for event with this binary's line in place of any it
// had (want "" removes it), keeping the other binaries' lines in order; nil
// when no line is left. old is the file as it is (nil: none).
func (s Spec) eventFile(a *Agent, event string, old []byte, want string) ([]byte, error) {
	header := fmt.Sprintf(eventHeader, a.Title(), event)
	var lines []string
	placed := want == ""
	if old != nil {
		body, ok := bytes.CutPrefix(old, []byte(header))
		if !ok {
			return nil, errNotOurs
		}
		for _, l := range strings.Split(strings.TrimRight(string(body), "\n"), "\n") {
			cmd, ok := strings.CutPrefix(l, eventLine)
			switch {
			case l == "":
			case ok && s.owns(cmd):
				if !placed { // ours, updated where it was: a second install changes nothing
					lines, placed = append(lines, eventLine+want), true
				}
			default:
				lines = append(lines, l)
			}
		}
	}
	if !placed {
		lines = append(lines, eventLine+want)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []byte(header + strings.Join(lines, "\n") + "\n"), nil
}

var errNotOurs = errors.New("not hookwire's")

// eventExts are the extensions hookwire's file for an event may have, in
// order: none, else (the user's own hook has that name) one Cline runs by
// the file's shebang too.
var eventExts = []string{"", ".sh", ".bash", ".zsh"}

// eventPath is the file of hookwire's for event in dir, and what it holds
// (nil: none yet): the one of its names that is hookwire's, else the first
// that is free; errNotOurs when every one is a hook of the user's.
func (s Spec) eventPath(a *Agent, dir, event string) (path string, old []byte, err error) {
	header := []byte(fmt.Sprintf(eventHeader, a.Title(), event))
	for _, ext := range eventExts {
		p := filepath.Join(dir, event+ext)
		b, err := readSettings(p)
		if err != nil {
			return "", nil, err
		}
		if b != nil && bytes.HasPrefix(b, header) {
			return p, b, nil
		}
		if b == nil && path == "" {
			path = p
		}
	}
	if path == "" {
		return filepath.Join(dir, event), nil, errNotOurs
	}
	return path, nil, nil
}

// eventOf is the event a file of hookwire's is for: its name's stem.
func eventOf(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// eventFiles applies install (want the lines) or uninstall (want nil) to
// each event's file in dir: every file is checked before any is written.
func (s Spec) eventFiles(con *hook.Console, a *Agent, dir string, want map[string]string, dryRun bool) error {
	type change struct {
		path     string
		old, new []byte
	}
	var changes []change
	for _, ev := range s.Events(a) {
		path, old, err := s.eventPath(a, dir, ev)
		if errors.Is(err, errNotOurs) {
			if want == nil {
				continue // the user's own hooks, which uninstall leaves alone
			}
			return fmt.Errorf("%s and the same name with %s are hooks of your own, which install does not replace or chain: "+
				"add to one of them a line that runs: %s; nothing was changed",
				path, strings.Join(eventExts[1:], ", "), want[ev])
		}
		if err != nil {
			return err
		}
		updated, err := s.eventFile(a, ev, old, want[ev])
		if err != nil {
			return err
		}
		if !bytes.Equal(old, updated) {
			changes = append(changes, change{path, old, updated})
		}
	}
	if len(changes) == 0 {
		fmt.Fprintf(con.Out, "%s: already up to date\n", dir)
		return nil
	}
	for _, c := range changes {
		switch {
		case dryRun:
			con.Out.Write(diff.Diff(c.path, c.old, c.path+" (after)", c.new))
		case c.new == nil:
			if err := os.Remove(c.path); err != nil {
				return err
			}
		default:
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			// An executable of the user's, written by rename as the
			// settings are: never through a link someone planted.
			if err := safefile.WriteFile(c.path, c.new, 0o755); err != nil {
				return unsafe(err)
			}
			if err := os.Chmod(c.path, 0o755); err != nil { // whatever the umask
				return err
			}
		}
	}
	if !dryRun {
		verb := "written"
		if want == nil {
			verb = "removed " + s.Binary + "'s line"
		}
		fmt.Fprintf(con.Out, "%s: %d %s hook files %s\n", dir, len(changes), a.Name, verb)
	}
	return nil
}

// eventCommands are this binary's command per event, running bin.
func (s Spec) eventCommands(a *Agent, bin string) map[string]string {
	out := map[string]string{}
	for _, e := range s.Entries(a, bin) {
		out[e.Event] = e.Command + ` "$@"`
	}
	return out
}

// eventSnippet is each event's file as install writes it with no other
// binary's line, under its name.
func (s Spec) eventSnippet(a *Agent, bin string) []byte {
	var b bytes.Buffer
	cmds := s.eventCommands(a, bin)
	for _, ev := range s.Events(a) {
		f, _ := s.eventFile(a, ev, nil, cmds[ev])
		fmt.Fprintf(&b, "==> %s (mode 0755) <==\n%s\n", ev, f)
	}
	return b.Bytes()
}

// eventFilesInstalled reports whether every event's file in dir has this
// binary's line as install writes it (all), or any line of it (some).
func (s Spec) eventFilesInstalled(a *Agent, dir, bin string) (all, some bool) {
	all = true
	cmds := s.eventCommands(a, bin)
	for _, ev := range s.Events(a) {
		_, old, err := s.eventPath(a, dir, ev)
		if err != nil || old == nil {
			all = false
			continue
		}
		want, err := s.eventFile(a, ev, old, cmds[ev])
		if err != nil || !bytes.Equal(want, old) {
			all = false
		}
		if without, err := s.eventFile(a, ev, old, ""); err == nil && !bytes.Equal(without, old) {
			some = true
		}
	}
	return all, some
}

// eventFilesFinding is doctor's word on the event files in dir.
func (s Spec) eventFilesFinding(a *Agent, dir, bin, install string) []Finding {
	switch all, some := s.eventFilesInstalled(a, dir, bin); {
	case all:
		return append([]Finding{{Status: OK, What: fmt.Sprintf("%s: hooks installed in %s", a.Name, dir)}}, eventFilesOnWindows(a)...)
	case some:
		return append([]Finding{{Status: Warn, What: fmt.Sprintf("%s: hooks in %s are not this binary's or not all there", a.Name, dir), Fix: install}}, eventFilesOnWindows(a)...)
	}
	return []Finding{{Status: Info, What: fmt.Sprintf("%s: no hooks in %s", a.Name, dir), Fix: install + ", if you use it"}}
}

// eventFilesOnWindows: on Windows, Cline CLI runs hookwire's #!/bin/sh file
// with the sh it finds on PATH (its hooks' loader runs a file by its
// shebang there too), which Windows has only with Git for Windows or
// another Unix layer; and Cline's VS Code extension runs only <Event>.ps1
// files there, of which hookwire writes none.
func eventFilesOnWindows(a *Agent) []Finding {
	if !onWindows {
		return nil
	}
	var out []Finding
	if sh, err := lookPath("sh"); err != nil {
		out = append(out, Finding{Status: Fail,
			What: fmt.Sprintf("%s: %s runs each hook file with sh, by its #!/bin/sh line, and no sh is on PATH here: its hooks cannot start", a.Name, a.Title()),
			Fix:  `install Git for Windows and put its usr\bin folder (C:\Program Files\Git\usr\bin) on PATH where the agent runs`})
	} else {
		out = append(out, Finding{Status: OK, What: fmt.Sprintf("%s: %s runs the hook files with %s", a.Name, a.Title(), sh)})
	}
	return append(out, Finding{Status: Info,
		What: fmt.Sprintf("%s: these hooks are Cline CLI's: Cline's VS Code extension runs only <Event>.ps1 hook files on Windows, which install does not write", a.Name)})
}

// lookPath is exec.LookPath (tests replace it).
var lookPath = exec.LookPath
