package hook

import (
	"os"
	"reflect"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/hookwire/hookwire/internal/agent"
)

// The generic lifecycle: one grammar that every binary shares. A shell
// script or CI job says what happens with a canonical kind as the event
// argument and these flags, and every surface maps it as it maps any
// agent's event. Hook JSON on stdin wins over them.
//
// The runtime takes the flags out of the arguments itself, before the
// binary's kong grammar sees them: as kong flags they would cost every hook
// call about 450 allocations (their model is built on each run), for a
// grammar that agents never use.
var scriptFlags = map[string]func(*agent.Script) *string{
	"--session": func(s *agent.Script) *string { return &s.Session },
	"--message": func(s *agent.Script) *string { return &s.Message },
	"--tool":    func(s *agent.Script) *string { return &s.Tool },
	"--input":   func(s *agent.Script) *string { return &s.Input },
	"--cwd":     func(s *agent.Script) *string { return &s.Cwd },
}

// ScriptHelp explains the generic lifecycle once, for every binary's --help.
const ScriptHelp = `From a shell script or CI job (no hook JSON on stdin):
  <binary> KIND [--session ID] [--message TEXT] [--tool NAME] [--input JSON] [--cwd DIR]
  KIND is one of session_start prompt tool_start tool_end permission attention
  turn_end interrupted error session_end. --message is the prompt, the result,
  the notification or the error, as the kind has it; --input is the tool's
  input, a JSON object. The session is --session, else $HOOKWIRE_SESSION, else
  the CI job (GITHUB_RUN_ID+GITHUB_JOB, CI_JOB_ID, BUILDKITE_JOB_ID, …), else the
  terminal pane or the terminal.`

// WrapHelp explains wrap, for the --help of a binary that has it.
const WrapHelp = `  <binary> wrap [--session ID] [--name TEXT] -- CMD ARGS… runs CMD as an agent's
  turn, and exits with its status.`

// splitScript takes the generic lifecycle's flags out of args (before a
// "--"), as "--flag value" or "--flag=value".
func splitScript(args []string) (rest []string, s agent.Script) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), s
		}
		name, value, inline := strings.Cut(a, "=")
		field, ok := scriptFlags[name]
		if !ok {
			rest = append(rest, a)
			continue
		}
		if !inline && i+1 < len(args) {
			i++
			value = args[i]
		}
		*field(&s) = value
	}
	return rest, s
}

// otherCommand reports whether word names a command that is not the hook
// (install, doctor, coral-pulse's status …): its arguments are its own, and
// a --session in a Coral status's text stays text.
func (inv *Invocation) otherCommand(word string) bool {
	if word == "" || word == "hook" {
		return false
	}
	for _, c := range inv.bin.Commands {
		if c.Name == word {
			return true
		}
	}
	if !hasCommands(inv.bin.CLI) {
		return false
	}
	t := reflect.TypeOf(inv.bin.CLI).Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); ok && strings.EqualFold(f.Name, word) {
			return true
		}
	}
	return false
}

// Scripted reports whether any of the generic lifecycle's flags was given.
func (inv *Invocation) Scripted() bool { return inv.script != agent.Script{} }

// ScriptFlags are the generic lifecycle's flags as given.
func (inv *Invocation) ScriptFlags() agent.Script { return inv.script }

// controllingTerminal names the terminal on stdin, stdout or stderr, "" when
// none is one: the last way to tell one script's session from another's.
func controllingTerminal() string {
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if isatty.IsTerminal(f.Fd()) {
			if name := ttyName(f); name != "" {
				return name
			}
		}
	}
	return ""
}
