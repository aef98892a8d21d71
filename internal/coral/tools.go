package coral

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
)

// An action is how a STATUS tells what a tool is doing: a present
// participle, then what it works on, read from the tool's input.
type action struct {
	verb string   // "Running"; empty: the input alone is the status
	show show     // how the input is shown
	keys []string // the input fields that may hold it; the first non-empty one wins
	bare string   // the status when none does
}

// show is how a tool's input appears in its status.
type show int

const (
	nothing show = iota // the bare status only
	shell               // a shell command: its first line, without a leading "cd DIR &&"
	path                // a file or directory: relative to the working directory, cut from the start
	quoted              // a pattern or query, in double quotes
	host                // a URL: its host
	words               // free text, as is
)

// The input fields each kind of action reads, in the canonical argument
// names (internal/agent/tools.go): each agent's dialect adds them beside
// its own.
var (
	commandKeys = []string{agent.ArgCommand}
	fileKeys    = []string{agent.ArgFilePath, agent.ArgNotebookPath}
	dirKeys     = []string{agent.ArgPath}
	patternKeys = []string{agent.ArgPattern}
	urlKeys     = []string{agent.ArgURL}
	searchKeys  = []string{agent.ArgQuery}
	taskKeys    = []string{agent.ArgDescription, agent.ArgSubagentType, agent.ArgPrompt}
)

var (
	run      = action{"Running", shell, commandKeys, "Running a command"}
	read     = action{"Reading", path, fileKeys, "Reading a file"}
	edit     = action{"Editing", path, fileKeys, "Editing a file"}
	write    = action{"Writing", path, fileKeys, "Writing a file"}
	remove   = action{"Deleting", path, fileKeys, "Deleting a file"}
	list     = action{"Listing", path, dirKeys, "Listing files"}
	grep     = action{"Searching for", quoted, patternKeys, "Searching the code"}
	glob     = action{"Finding", quoted, patternKeys, "Finding files"}
	fetch    = action{"Fetching", host, urlKeys, "Fetching a web page"}
	search   = action{"Searching the web for", quoted, searchKeys, "Searching the web"}
	delegate = action{"Delegating:", words, taskKeys, "Delegating to a subagent"}
	skill    = action{"Using skill", words, []string{agent.ArgSkill}, "Using a skill"}
	applyP   = action{"Editing", path, fileKeys, "Applying a patch"}
	intent   = action{"", words, []string{agent.ArgIntent}, "Thinking"}
	planning = action{bare: "Planning"}
	finish   = action{bare: "Finishing the task"}
	resource = action{bare: "Reading an MCP resource"}
	plan     = action{bare: "Updating the plan"}
	readPlan = action{bare: "Reading the plan"}
	ask      = action{bare: "Asking a question"}
	present  = action{bare: "Presenting a plan"}
	output   = action{bare: "Checking command output"}
	input    = action{bare: "Sending input to a command"}
	kill     = action{bare: "Stopping a command"}
	memory   = action{bare: "Saving a memory"}
	browse   = action{bare: "Using the browser"}
	image    = action{bare: "Viewing an image"}
)

// tools maps the canonical tools (Event.Tool) to their action.
var tools = map[string]action{
	agent.Bash: run, agent.BashOutput: output, agent.BashInput: input, agent.KillShell: kill,
	agent.Read: read, agent.Write: write, agent.Edit: edit, agent.MultiEdit: edit,
	agent.NotebookEdit: edit, agent.Delete: remove, agent.ApplyPatch: applyP,
	agent.Grep: grep, agent.Glob: glob, agent.LS: list, agent.WebFetch: fetch, agent.WebSearch: search,
	agent.Task: delegate, agent.TodoWrite: plan, agent.TodoRead: readPlan, agent.AskUserQuestion: ask, agent.Skill: skill,
	agent.EnterPlanMode: planning, agent.ExitPlanMode: present, agent.ListMcpResource: resource,
	agent.ReadMcpResource: resource, agent.ViewImage: image, agent.Memory: memory,
	agent.Browser: browse, agent.Intent: intent, agent.CompleteTask: finish,
}

// ToolStatus is the STATUS of a tool about to run: "Running go test ./...",
// "Editing internal/hook/run.go", `Searching for "Deadline"`. A tool the
// table does not know is "Using NAME".
func ToolStatus(ev agent.Event, home string) string {
	a, ok := tools[ev.Tool]
	if !ok {
		if ev.Tool == "" {
			return "Using a tool"
		}
		return StatusText("Using " + toolName(ev.Tool))
	}
	arg := a.arg(ev, home)
	if arg == "" {
		return a.bare
	}
	if a.verb == "" {
		return StatusText(arg)
	}
	room := MaxStatus - utf8.RuneCountInString(a.verb) - 1
	switch a.show {
	case path:
		arg = fit(arg, room, true)
	case quoted:
		arg = `"` + fit(arg, room-2, false) + `"`
	default:
		arg = fit(arg, room, false)
	}
	return StatusText(a.verb + " " + arg)
}

// arg reads and shapes what the status shows of the tool's input.
func (a action) arg(ev agent.Event, home string) string {
	if a.show == nothing || len(ev.ToolInput) == 0 {
		return ""
	}
	in := gjson.ParseBytes(ev.ToolInput)
	var v gjson.Result
	for _, k := range a.keys {
		if v = in.Get(k); v.Exists() && v.Type != gjson.Null && strings.TrimSpace(v.String()) != "" {
			break
		}
	}
	if !v.Exists() {
		return ""
	}
	var s string
	switch a.show {
	case shell:
		s = command(v)
	case path:
		s = displayPath(Clean(v.String()), ev.Cwd, home)
	case host:
		s = hostOf(v.String())
	default:
		s = v.String()
	}
	return Clean(s)
}

// command is a shell command's first line (the dialect made argv a line).
// A leading "cd DIR &&" says where, not what, and goes.
func command(v gjson.Result) string {
	s := FirstLine(v.String())
	for {
		rest, ok := strings.CutPrefix(s, "cd ")
		if !ok {
			break
		}
		_, after, ok := strings.Cut(rest, "&&")
		if !ok {
			break
		}
		s = strings.TrimSpace(after)
	}
	return s
}

// hostOf is the host of the first URL in s, without "www.".
func hostOf(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return ""
	}
	start := strings.LastIndexFunc(s[:i], func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) + 1
	end := strings.IndexFunc(s[i:], func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == '>' || r == ')'
	})
	raw := s[start:]
	if end >= 0 {
		raw = s[start : i+end]
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// toolName shows a tool's name: MCP tools (mcp__server__tool) as
// server/tool.
func toolName(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if server, tool, ok := strings.Cut(rest, "__"); ok {
			return server + "/" + tool
		}
		return rest
	}
	return name
}
