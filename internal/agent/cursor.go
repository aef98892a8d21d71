package agent

import (
	"time"

	"github.com/tidwall/gjson"
)

// cursor is Cursor's agent hooks: camelCase event names, snake_case fields,
// and older tool-specific events that name no tool.
var cursor = &Dialect{
	Agent: Cursor,
	Title: "Cursor",
	Detect: func(p gjson.Result) bool {
		return p.Get("conversation_id").Exists() && p.Get("workspace_roots").Exists()
	},
	Events: []Name{
		{"sessionStart", SessionStart, false},
		{"beforeSubmitPrompt", Prompt, false},
		{"preToolUse", ToolStart, false},
		{"postToolUse", ToolEnd, false},
		{"postToolUseFailure", ToolEnd, false},
		{"subagentStart", SubagentStart, false},
		{"subagentStop", SubagentStop, false},
		{"stop", TurnEnd, false}, // or Interrupted, Error: see refineCursor
		{"preCompact", Compact, false},
		{"sessionEnd", SessionEnd, false},
		// The tool-specific events fire beside preToolUse and postToolUse:
		// installing both would show every tool twice.
		{"beforeShellExecution", ToolStart, true},
		{"beforeMCPExecution", ToolStart, true},
		{"afterShellExecution", ToolEnd, true},
		{"afterMCPExecution", ToolEnd, true},
		{"afterFileEdit", ToolEnd, true},
	},
	// Its stop names no answer: its transcript's last entry has it.
	Answer: tailAnswer,
	Paths: Paths{
		Session: []string{"conversation_id"},
		Cwd:     []string{"workspace_roots.0"},
		Reason:  []string{"status"},
		// Cursor's hooks documentation: postToolUse's tool_output,
		// afterShellExecution's output, afterMCPExecution's result_json.
		ToolOutput: []string{"tool_output", "output", "result_json"},
	},
	// Its hooks use Claude-like names (Shell, Read, Edit, Delete, …), its
	// older events the tools' own; MCP tools are MCP:<tool>.
	Tools: map[string]string{
		"shell": Bash, "run_terminal_cmd": Bash, "read_file": Read, "edit_file": Edit,
		"delete": Delete, "delete_file": Delete, "grep_search": Grep, "codebase_search": Grep,
		"file_search": Glob, "list_dir": LS, "web_search": WebSearch,
		"mcp:*": "mcp__*",
	},
	Args: []Alias{
		{"target_file", ArgFilePath}, {"relative_workspace_path", ArgPath}, {"search_term", ArgQuery},
	},
	ToolArgs: map[string][]Alias{
		"grep_search":     {{"query", ArgPattern}},
		"codebase_search": {{"query", ArgPattern}},
		"file_search":     {{"query", ArgPattern}},
	},
	Refine: refineCursor,
	Settings: &Settings{
		User: []string{".cursor", "hooks.json"}, Project: []string{".cursor", "hooks.json"},
		Strict: true, Shape: Flat, Unit: time.Second,

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"cursor-agent", "cursor"},
	},
}

func refineCursor(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "stop":
		switch p.Get("status").String() {
		case "aborted":
			ev.Kind = Interrupted
		case "error":
			ev.Kind = Error
		}
	case "postToolUseFailure":
		ev.OK = false
	case "beforeShellExecution", "afterShellExecution":
		if ev.Tool == "" {
			ev.Tool = "Shell"
		}
		if ev.ToolInput == nil {
			ev.ToolInput = object("command", p.Get("command"))
		}
	case "afterFileEdit":
		if ev.Tool == "" {
			ev.Tool = "Edit"
		}
		if ev.ToolInput == nil {
			ev.ToolInput = object("file_path", p.Get("file_path"))
		}
	}
}
