package hook

import (
	"os"

	"github.com/mattn/go-isatty"

	"github.com/hookwire/hookwire/internal/agent"
)

// Lifecycle is the generic lifecycle's flags, one grammar that every binary
// embeds: a shell script or CI job says what happens with a canonical kind
// as the event argument and these flags, and every surface maps it as it
// maps any agent's event. Hook JSON on stdin wins over them.
type Lifecycle struct {
	Session string `group:"script" placeholder:"ID" help:"The session (default: $HOOKWIRE_SESSION, else the CI job, else the terminal pane)."`
	Message string `group:"script" placeholder:"TEXT" help:"The prompt, the result, the notification or the error, as the kind has it."`
	Tool    string `group:"script" placeholder:"NAME" help:"The tool (tool_start, tool_end, permission), e.g. Bash."`
	Input   string `group:"script" placeholder:"JSON" help:"The tool's input, a JSON object, e.g. {\"command\":\"make\"}."`
	Cwd     string `group:"script" placeholder:"DIR" help:"The working directory (default: the current one)."`
}

// ScriptHelp explains the generic lifecycle once, for every binary's --help.
const ScriptHelp = `From a shell script or CI job (no hook JSON on stdin):
  <binary> KIND [--session ID] [--message TEXT] [--tool NAME] [--input JSON] [--cwd DIR]
  KIND: session_start prompt tool_start tool_end permission attention turn_end
        interrupted error session_end
  The session is --session, else $HOOKWIRE_SESSION, else the CI job
  (GITHUB_RUN_ID+GITHUB_JOB, CI_JOB_ID, BUILDKITE_JOB_ID, …), else the terminal pane.
  <binary> wrap [--session ID] [--name TEXT] -- CMD ARGS… runs CMD as an agent's turn
  and exits with its status.`

// AfterApply hands the flags to the invocation (kong calls it after parsing).
func (l *Lifecycle) AfterApply(inv *Invocation) error {
	inv.script = agent.Script(*l)
	return nil
}

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
