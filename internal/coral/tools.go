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
	patch               // a patch: the first file it touches
)

// The input fields of each kind of argument across dialects: snake_case
// (Claude Code, Codex, Gemini CLI, Cursor), camelCase (Copilot CLI) and
// Antigravity's PascalCase.
var (
	commandKeys = []string{"command", "cmd", "CommandLine", "commandLine"}
	fileKeys    = []string{"file_path", "absolute_path", "notebook_path", "target_file", "path", "filePath",
		"FilePath", "AbsolutePath", "TargetFile", "Path", "file", "paths.0", "file_paths.0"}
	dirKeys    = []string{"path", "dir_path", "directory", "relative_workspace_path", "DirectoryPath", "SearchDirectory", "Path"}
	grepKeys   = []string{"pattern", "query", "regex", "Pattern", "Query"}
	globKeys   = []string{"pattern", "glob_pattern", "query", "Pattern", "include"}
	urlKeys    = []string{"url", "Url", "URL", "prompt"} // Gemini's web_fetch has its URLs in a prompt
	searchKeys = []string{"query", "search_term", "Query", "q"}
	taskKeys   = []string{"description", "subagent_type", "agent_name", "prompt"}
)

var (
	run      = action{"Running", shell, commandKeys, "Running a command"}
	read     = action{"Reading", path, fileKeys, "Reading a file"}
	edit     = action{"Editing", path, fileKeys, "Editing a file"}
	write    = action{"Writing", path, fileKeys, "Writing a file"}
	remove   = action{"Deleting", path, fileKeys, "Deleting a file"}
	list     = action{"Listing", path, dirKeys, "Listing files"}
	grep     = action{"Searching for", quoted, grepKeys, "Searching the code"}
	glob     = action{"Finding", quoted, globKeys, "Finding files"}
	fetch    = action{"Fetching", host, urlKeys, "Fetching a web page"}
	search   = action{"Searching the web for", quoted, searchKeys, "Searching the web"}
	delegate = action{"Delegating:", words, taskKeys, "Delegating to a subagent"}
	skill    = action{"Using skill", words, []string{"skill", "command", "name"}, "Using a skill"}
	applyP   = action{"Editing", patch, []string{"input", "patch", "command"}, "Applying a patch"}
	intent   = action{"", words, []string{"intent"}, "Thinking"}
	topic    = action{"", words, []string{"title", "strategic_intent"}, "Thinking"}
	planning = action{bare: "Planning"}
	finish   = action{bare: "Finishing the task"}
	resource = action{bare: "Reading an MCP resource"}
	plan     = action{bare: "Updating the plan"}
	ask      = action{bare: "Asking a question"}
	present  = action{bare: "Presenting a plan"}
	output   = action{bare: "Checking command output"}
	input    = action{bare: "Sending input to a command"}
	kill     = action{bare: "Stopping a command"}
	memory   = action{bare: "Saving a memory"}
	browse   = action{bare: "Using the browser"}
	image    = action{bare: "Viewing an image"}
)

// tools maps each agent's tool names to their action. A name is looked up
// as sent, then lower-cased.
var tools = map[string]action{
	// Claude Code; Codex hooks and Cursor reuse several of these names.
	"Bash": run, "Read": read, "Edit": edit, "MultiEdit": edit, "Write": write, "NotebookEdit": edit,
	"Grep": grep, "Glob": glob, "LS": list, "WebFetch": fetch, "WebSearch": search,
	"Task": delegate, "Agent": delegate, "TodoWrite": plan, "ExitPlanMode": present,
	"AskUserQuestion": ask, "Skill": skill, "SlashCommand": skill,
	"BashOutput": output, "KillShell": kill, "KillBash": kill,

	// Gemini CLI.
	"run_shell_command": run, "read_file": read, "read_many_files": read, "write_file": write,
	"replace": edit, "glob": glob, "search_file_content": grep, "list_directory": list,
	"web_fetch": fetch, "google_web_search": search, "save_memory": memory, "write_todos": plan,
	// Gemini CLI 0.61 (defect 12 of issue 11: these showed as "Using …").
	"update_topic": topic, "ask_user": ask, "invoke_agent": delegate, "enter_plan_mode": planning,
	"exit_plan_mode": present, "activate_skill": skill, "complete_task": finish,
	"read_mcp_resource": resource, "list_mcp_resources": resource, "get_internal_docs": read,

	// Antigravity (its arguments are PascalCase: CommandLine, TargetFile, …).
	"run_command": run, "view_file": read, "view_file_outline": read, "view_code_item": read,
	"edit_file": edit, "write_to_file": write, "replace_file_content": edit,
	"multi_replace_file_content": edit, "codebase_search": grep, "grep_search": grep,
	"find_by_name": glob, "list_dir": list, "read_url_content": fetch, "search_web": search,
	"command_status": output, "send_command_input": input,

	// Codex (besides Claude's names, which its hooks use for the shell).
	"shell": run, "local_shell": run, "exec_command": run, "container.exec": run,
	"apply_patch": applyP, "update_plan": plan, "web_search": search, "view_image": image,
	"write_stdin": input,

	// Cursor (besides Claude's names).
	"Shell": run, "Delete": remove, "run_terminal_cmd": run, "delete_file": remove, "file_search": glob,

	// Copilot CLI.
	"bash": run, "view": read, "create": write, "edit": edit, "str_replace_editor": edit,
	"grep": grep, "fetch": fetch, "report_intent": intent, "update_todo": plan,
	"read_bash": output, "write_bash": input, "stop_bash": kill,
}

// lookup finds a tool's action; browser_* tools are Antigravity's browser.
func lookup(name string) (action, bool) {
	if a, ok := tools[name]; ok {
		return a, true
	}
	if a, ok := tools[strings.ToLower(name)]; ok {
		return a, true
	}
	if strings.HasPrefix(name, "browser_") {
		return browse, true
	}
	return action{}, false
}

// ToolStatus is the STATUS of a tool about to run: "Running go test ./...",
// "Editing internal/hook/run.go", `Searching for "Deadline"`. A tool the
// table does not know is "Using NAME".
func ToolStatus(ev agent.Event, home string) string {
	a, ok := lookup(ev.Tool)
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
	case patch:
		s = displayPath(patchFile(v.String()), ev.Cwd, home)
	default:
		s = v.String()
	}
	return Clean(s)
}

// command is a shell command's first line. Codex may send argv
// (["bash","-lc","go test"]): then the script, or the words joined. A
// leading "cd DIR &&" says where, not what, and goes.
func command(v gjson.Result) string {
	s := v.String()
	if v.IsArray() {
		var argv []string
		for _, a := range v.Array() {
			argv = append(argv, a.String())
		}
		if n := len(argv); n >= 3 && (argv[n-2] == "-lc" || argv[n-2] == "-c") {
			s = argv[n-1]
		} else {
			s = strings.Join(argv, " ")
		}
	}
	s = FirstLine(s)
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

// patchFile is the first file an apply_patch patch touches.
func patchFile(p string) string {
	for line := range strings.Lines(p) {
		for _, marker := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(strings.TrimSpace(line), marker); ok {
				return strings.TrimSpace(f)
			}
		}
	}
	return ""
}

// toolName shows a tool's name: MCP tools (mcp__server__tool, Cursor's
// MCP:tool) as server/tool.
func toolName(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if server, tool, ok := strings.Cut(rest, "__"); ok {
			return server + "/" + tool
		}
		return rest
	}
	if rest, ok := strings.CutPrefix(name, "MCP:"); ok {
		return rest
	}
	return name
}
