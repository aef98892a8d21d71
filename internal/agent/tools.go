package agent

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// copilotTools names Copilot CLI's tools in Claude Code's vocabulary, which
// every surface reads (Coucou's app renders Claude's tools; Coral and VPet
// phrase them). Copilot's other tools keep their names.
var copilotTools = map[string]string{
	"bash": "Bash", "view": "Read", "create": "Write", "edit": "Edit", "str_replace_editor": "Edit",
	"grep": "Grep", "glob": "Glob", "fetch": "WebFetch", "web_fetch": "WebFetch",
	"read_bash": "BashOutput", "stop_bash": "KillShell", "task": "Task", "update_todo": "TodoWrite",
}

// copilotArgs are Copilot's argument names, and Claude's for the same thing,
// added beside them (never over a field the payload has).
var copilotArgs = []struct{ from, to string }{
	{"path", "file_path"}, {"file_text", "content"}, {"old_str", "old_string"}, {"new_str", "new_string"},
}

// copilotTool renames the tool and adds Claude's argument names after
// Copilot's own.
func copilotTool(ev *Event) {
	if ev.Tool == "" {
		return
	}
	if n, ok := copilotTools[strings.ToLower(ev.Tool)]; ok {
		ev.Tool = n
	}
	addArgs(ev, copilotArgs)
}

// antigravityArgs are Antigravity's PascalCase argument names, and Claude's.
var antigravityArgs = []struct{ from, to string }{
	{"CommandLine", "command"}, {"FilePath", "file_path"}, {"Path", "path"},
	{"Url", "url"}, {"Query", "query"}, {"Pattern", "pattern"},
}

// addArgs adds Claude's names for the arguments of ev's tool after the
// agent's own, never over a field the input has.
func addArgs(ev *Event, names []struct{ from, to string }) {
	if len(ev.ToolInput) == 0 {
		return
	}
	in := gjson.ParseBytes(ev.ToolInput)
	if !in.IsObject() {
		return
	}
	out := bytes.TrimRight(ev.ToolInput, " \t\r\n")
	if len(out) == 0 || out[len(out)-1] != '}' {
		return
	}
	out = append([]byte(nil), out[:len(out)-1]...)
	empty := len(in.Map()) == 0
	for _, a := range names {
		if v := in.Get(a.from); v.Exists() && !in.Get(a.to).Exists() {
			if !empty {
				out = append(out, ',')
			}
			out = append(append(append(out, strconv.Quote(a.to)...), ':'), v.Raw...)
			empty = false
		}
	}
	ev.ToolInput = append(out, '}')
}
