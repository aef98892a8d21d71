package agent

import (
	"time"

	"github.com/tidwall/gjson"
)

// antigravity is Google's Antigravity: camelCase JSON that names no event
// (each hook line names it), its tool call as toolCall {name, args} with
// PascalCase arguments.
var antigravity = &Dialect{
	Agent:   Antigravity,
	Aliases: []string{"agy"},
	Title:   "Antigravity",
	Detect: func(p gjson.Result) bool {
		return p.Get("hook_event_name").String() == "" &&
			(p.Get("conversationId").Exists() || p.Get("toolCall").Exists() || p.Get("workspacePaths").Exists())
	},
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"PreInvocation", Prompt, false}, // Thinking after the first invocation; see refineAntigravity
		{"PreToolUse", ToolStart, false},
		{"PostToolUse", ToolEnd, false},
		// PostInvocation fires after every model call: the model's answer is
		// either a tool call (PreToolUse follows) or the end (Stop follows).
		{"PostInvocation", Unknown, false},
		{"Stop", TurnEnd, false},
	},
	Paths: Paths{
		Session:    []string{"conversationId"},
		Cwd:        []string{"workspacePaths.0"},
		Transcript: []string{"transcriptPath"},
		Tool:       []string{"toolCall.name"},
		Prompt:     []string{"initialPrompt"},
		Reason:     []string{"terminationReason"},
		ToolInput:  []string{"toolCall.args"},
	},
	Tools: map[string]string{
		"run_command": Bash, "view_file": Read, "view_file_outline": Read, "view_code_item": Read,
		"write_to_file": Write, "edit_file": Edit, "replace_file_content": Edit,
		"multi_replace_file_content": Edit, "codebase_search": Grep, "grep_search": Grep,
		"find_by_name": Glob, "list_dir": LS, "read_url_content": WebFetch, "search_web": WebSearch,
		"command_status": BashOutput, "send_command_input": BashInput,
		"browser_*": Browser, // browser_click, browser_navigate, …
	},
	Args: []Alias{
		{"CommandLine", ArgCommand}, {"FilePath", ArgFilePath}, {"AbsolutePath", ArgFilePath},
		{"TargetFile", ArgFilePath}, {"CodeContent", ArgContent}, {"DirectoryPath", ArgPath},
		{"SearchDirectory", ArgPath}, {"Path", ArgPath}, {"Url", ArgURL}, {"Query", ArgQuery},
		{"Pattern", ArgPattern},
	},
	// Its searches of the code take a Query: the pattern.
	ToolArgs: map[string][]Alias{
		"codebase_search": {{"Query", ArgPattern}},
		"grep_search":     {{"Query", ArgPattern}, {"SearchPath", ArgPath}},
	},
	Refine: refineAntigravity,
	Settings: &Settings{
		User: []string{".gemini", "config", "hooks.json"}, Project: []string{".agents", "hooks.json"},
		Strict: true, Shape: Named, Unit: time.Second, Positional: true,
		Matched: []string{"PreToolUse", "PostToolUse"},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"agy", "antigravity"},
	},
	Reply: func(name string, _ Reply) string {
		if name == "PreToolUse" {
			// {} reads as a denial there; ask keeps Antigravity's own prompt.
			return `{"decision":"ask"}`
		}
		return "{}"
	},
}

func refineAntigravity(ev *Event, p gjson.Result) {
	switch ev.Kind {
	case Prompt:
		// PreInvocation fires before every model call of a turn; only the first
		// one starts the turn.
		if p.Get("invocationNum").Int() > 0 {
			ev.Kind = Thinking
		}
	case ToolEnd:
		ev.OK = ev.Error == ""
	}
}
