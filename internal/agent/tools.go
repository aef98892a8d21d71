package agent

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The canonical tool vocabulary: Claude Code's tool names, which most
// agents copy and every surface reads, and a few names of our own for tools
// Claude Code lacks. Each dialect's Tools map names its agent's tools in it,
// so that a surface tells a shell from a file edit without knowing any
// agent: Event.Tool holds the canonical name (or, for a tool the vocabulary
// lacks, an MCP tool, a plugin's, the agent's own), Event.AgentTool the
// name the agent sent. Each comment names the canonical arguments the tool
// takes (Event.ToolInput), beside the agent's own.
const (
	Bash            = "Bash"                 // run a shell command: command, description
	BashOutput      = "BashOutput"           // read a running command's output
	KillShell       = "KillShell"            // stop a running command
	Read            = "Read"                 // read a file: file_path
	Write           = "Write"                // create or overwrite a file: file_path, content
	Edit            = "Edit"                 // edit a file: file_path, old_string, new_string
	MultiEdit       = "MultiEdit"            // several edits of one file: file_path
	NotebookEdit    = "NotebookEdit"         // edit a notebook: notebook_path
	Grep            = "Grep"                 // search file contents: pattern, path
	Glob            = "Glob"                 // find files by name: pattern, path
	LS              = "LS"                   // list a directory: path
	WebFetch        = "WebFetch"             // fetch a web page: url
	WebSearch       = "WebSearch"            // search the web: query
	Task            = "Task"                 // delegate to a subagent: description, subagent_type, prompt
	TodoWrite       = "TodoWrite"            // update the plan or the to-do list
	TodoRead        = "TodoRead"             // read the to-do list (older Claude Code, opencode)
	AskUserQuestion = "AskUserQuestion"      // ask the person a question
	Skill           = "Skill"                // use a skill or a slash command: skill
	EnterPlanMode   = "EnterPlanMode"        // start planning
	ExitPlanMode    = "ExitPlanMode"         // present a plan
	ListMcpResource = "ListMcpResourcesTool" // list an MCP server's resources
	ReadMcpResource = "ReadMcpResourceTool"  // read an MCP resource

	// Tools Claude Code lacks.
	BashInput    = "BashInput"    // send input to a running command
	Delete       = "Delete"       // delete a file: file_path
	ApplyPatch   = "ApplyPatch"   // apply a patch to files: patch (the patch's text)
	ViewImage    = "ViewImage"    // look at an image: file_path
	Memory       = "Memory"       // save a fact to the agent's memory
	Browser      = "Browser"      // act in a web browser (click, type, open a page)
	Intent       = "Intent"       // say what the agent is about to do: intent (one line)
	CompleteTask = "CompleteTask" // a subagent reports its task done
)

// Canonical argument names in Event.ToolInput, added beside the agent's own
// (Dialect.Args): Claude Code's, and patch and intent for tools it lacks.
const (
	ArgCommand      = "command"       // a shell command line, always a string
	ArgFilePath     = "file_path"     // the file a tool reads or writes
	ArgNotebookPath = "notebook_path" // the notebook NotebookEdit edits
	ArgPath         = "path"          // a directory a tool lists or searches
	ArgPattern      = "pattern"       // what Grep or Glob looks for
	ArgQuery        = "query"         // what WebSearch looks for
	ArgURL          = "url"           // the page WebFetch fetches
	ArgDescription  = "description"   // a short account of a command or a subagent's task
	ArgSubagentType = "subagent_type" // which subagent Task runs
	ArgPrompt       = "prompt"        // what Task tells the subagent
	ArgContent      = "content"       // what Write writes
	ArgOldString    = "old_string"    // what Edit replaces
	ArgNewString    = "new_string"    // what Edit writes instead
	ArgSkill        = "skill"         // the skill or slash command Skill runs
	ArgPatch        = "patch"         // ApplyPatch's patch
	ArgIntent       = "intent"        // Intent's line
)

// nameTool names ev's tool in the canonical vocabulary (Event.Tool, the
// agent's own name kept in Event.AgentTool) and adds the canonical names
// of its arguments after the agent's own. Parse calls it once the dialect's
// Refine has run; calling it again changes nothing.
func (d *Dialect) nameTool(ev *Event) {
	if ev.AgentTool == "" {
		ev.AgentTool = ev.Tool
	}
	own := strings.ToLower(ev.AgentTool)
	if n, ok := d.toolName(ev.AgentTool, own); ok {
		ev.Tool = n
	}
	if len(ev.ToolInput) == 0 || len(d.Args)+len(d.ToolArgs[own]) == 0 && !gjson.GetBytes(ev.ToolInput, ArgCommand).IsArray() {
		return // nothing to add (GetBytes does not copy the input, ParseBytes does)
	}
	in := gjson.ParseBytes(ev.ToolInput)
	if !in.IsObject() {
		return
	}
	var add []arg
	added := func(key string) bool {
		return slices.ContainsFunc(add, func(a arg) bool { return a.key == key })
	}
	if c := in.Get(ArgCommand); c.IsArray() {
		// The one argument replaced: a command is a string in the
		// vocabulary, and Codex sends argv under the same name.
		add = append(add, arg{ArgCommand, strconv.Quote(commandLine(c))})
	}
	for _, list := range [][]Alias{d.ToolArgs[own], d.Args} {
		for _, a := range list {
			if added(a.To) || in.Get(a.To).Exists() {
				continue
			}
			v := in.Get(a.From)
			if !v.Exists() || v.Type == gjson.Null {
				continue
			}
			raw := v.Raw
			if a.To == ArgCommand && v.IsArray() {
				raw = strconv.Quote(commandLine(v))
			}
			add = append(add, arg{a.To, raw})
		}
	}
	ev.ToolInput = setFields(ev.ToolInput, in, add)
}

// toolName looks the agent's tool name up in Tools: exactly (lower-cased),
// else by a key ending in "*", which matches the names it begins; a value
// ending in "*" then keeps the rest of the name ("mcp:*": "mcp__*").
func (d *Dialect) toolName(name, lower string) (string, bool) {
	if name == "" {
		return "", false
	}
	if n, ok := d.Tools[lower]; ok {
		return n, true
	}
	for k, n := range d.Tools {
		prefix, ok := strings.CutSuffix(k, "*")
		if !ok || !strings.HasPrefix(lower, prefix) {
			continue
		}
		if p, ok := strings.CutSuffix(n, "*"); ok {
			rest := lower[len(prefix):]
			if len(name) == len(lower) {
				rest = name[len(prefix):] // as the agent spells it
			}
			return p + rest, true
		}
		return n, true
	}
	return "", false
}

type arg struct{ key, raw string }

// setFields adds fields to a JSON object, after its own, or replaces the
// value of one it has (a command given as argv, which is a string in the
// canonical vocabulary).
func setFields(obj json.RawMessage, in gjson.Result, add []arg) json.RawMessage {
	if len(add) == 0 {
		return obj
	}
	replace := map[string]string{}
	var out []byte
	out = append(out, '{')
	n := 0
	for _, f := range add {
		if in.Get(f.key).Exists() {
			replace[f.key] = f.raw
		}
	}
	in.ForEach(func(k, v gjson.Result) bool {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(append(out, k.Raw...), ':')
		if r, ok := replace[k.Str]; ok {
			out = append(out, r...)
			delete(replace, k.Str)
		} else {
			out = append(out, v.Raw...)
		}
		n++
		return true
	})
	for _, f := range add {
		if in.Get(f.key).Exists() {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, strconv.Quote(f.key)...), ':'), f.raw...)
		n++
	}
	return append(out, '}')
}

// commandLine is a command given as argv (["bash","-lc","go test"]) as one
// line: the script a shell runs with -c or -lc, else the words joined.
func commandLine(v gjson.Result) string {
	var argv []string
	for _, a := range v.Array() {
		argv = append(argv, a.String())
	}
	if n := len(argv); n >= 3 && (argv[n-2] == "-lc" || argv[n-2] == "-c") {
		return argv[n-1]
	}
	return strings.Join(argv, " ")
}

// firstURL is the first http(s) URL in a text, or "".
func firstURL(s string) string {
	i := strings.Index(s, "http://")
	if j := strings.Index(s, "https://"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return ""
	}
	s = s[i:]
	if end := strings.IndexAny(s, " \t\r\n\"'<>()[]{}`"); end >= 0 {
		s = s[:end]
	}
	return strings.TrimRight(s, ".,;:!?")
}
