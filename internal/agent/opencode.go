package agent

import (
	_ "embed"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// opencode runs no command hooks, only JS/TS plugins: install writes
// opencode_plugin.js (embedded below) into its plugins folder, once per
// binary, and the plugin hands the events below to the binary as JSON on
// stdin, with --agent opencode: a bus event as opencode sends it
// ({id, type, properties}) or a hook's {type, input, output}, each with the
// project's directory. What the plugin leaves out and adds (the answer on
// session.idle, parentID for a subagent's session) is said in the plugin.
// Observed on opencode 1.18.33 (testdata/agents/opencode-1.18.33).
var opencode = &Dialect{
	Agent:   "opencode",
	Title:   "opencode",
	Product: "opencode",
	Events: []Name{
		{"session.created", SessionStart, false},
		{"chat.message", Prompt, false},
		{"tool.execute.before", ToolStart, false},
		// A tool gets tool.execute.after only when it returns: a tool that
		// throws (a missing file) or is refused gets none, and the plugin
		// hands over its part, in error, instead.
		{"tool.execute.after", ToolEnd, false},
		{"message.part.updated", ToolEnd, false},
		// No plugin hook can answer a permission (the plugin API's
		// permission.ask is never called in 1.18.33): a person answers in
		// opencode's own prompt, and `opencode run` refuses at once
		// (permission.replied reply "reject"; with --auto, "once"). So it
		// is a notification that asks for a permission, as Claude Code's
		// permission_prompt is: Attention, refined to Permission.
		{"permission.asked", Attention, false},
		{"permission.replied", Unknown, false},
		// The question tool (opencode's TUI; `opencode run` denies it)
		// waits for a person's answer.
		{"question.asked", Attention, false},
		{"question.replied", Unknown, false},
		{"question.rejected", Unknown, false},
		// session.idle ends the turn; the plugin hands it over once per
		// turn (after session.error opencode says it twice more).
		{"session.idle", TurnEnd, false},
		{"session.error", Error, false},
		{"session.status", Unknown, false},
	},
	Paths: Paths{
		Session:   []string{"properties.sessionID", "input.sessionID", "properties.part.sessionID"},
		Cwd:       []string{"directory"},
		Tool:      []string{"input.tool", "properties.part.tool", "properties.permission"},
		ToolUseID: []string{"input.callID", "properties.part.callID", "properties.tool.callID"},
		Prompt:    []string{`output.parts.#(type=="text").text`},
		Message:   []string{"answer", "properties.questions.0.question"},
		Model:     []string{"output.message.model.modelID"},
		ErrorType: []string{"properties.error.name"},
		Error:     []string{"properties.error.data.message", "properties.part.state.error"},
		ToolInput: []string{"output.args", "input.args", "properties.part.state.input", "properties.metadata"},
		// tool.execute.after's output is the tool's result {title, output,
		// metadata}: output is the command's output or the file read (the
		// plugin cuts it at 16 KiB), metadata what the tool adds (an edit's
		// diff and the file before and after); a completed tool part keeps
		// its output in state.output (the plugin hands over only parts in
		// error). The title (a command, a path) stays.
		ToolOutput: []string{"output.output", "output.metadata", "properties.part.state.output"},
	},
	// The tools 1.18.33 offers the model (websearch with its Exa flag).
	Tools: map[string]string{
		"bash": Bash, "read": Read, "write": Write, "edit": Edit, "glob": Glob, "grep": Grep,
		"webfetch": WebFetch, "websearch": WebSearch, "task": Task, "todowrite": TodoWrite, "skill": Skill,
	},
	Args:   []Alias{{"filePath", ArgFilePath}, {"oldString", ArgOldString}, {"newString", ArgNewString}},
	Refine: refineOpencode,
	// opencode keeps its usage in a SQLite database; the plugin hands each
	// turn's assistant messages (their tokens and model) over with its
	// events instead, and Pulse counts each message once.
	Burn: &Burn{Format: transcript.Opencode},
	Settings: &Settings{
		User: []string{".config", "opencode", "plugins"}, Project: []string{".opencode", "plugins"},
		HomeVar: "XDG_CONFIG_HOME", HomeRel: []string{"opencode", "plugins"},
		Shape: PluginFile, Unit: time.Millisecond,
		Plugin: &Plugin{Ext: ".js", Source: opencodePluginSource},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"opencode"},
	},
}

func refineOpencode(ev *Event, p gjson.Result) {
	// A subagent (the task tool) runs in a child session, which the plugin
	// names by its parentID: as Claude Code's subagents do, it starts and
	// stops in the parent's session, and its tools are the parent's; its
	// prompt is no turn of the user's, its error the parent's task tool's.
	parent := p.Get("parentID").Str
	if parent != "" {
		ev.Session = parent
	}
	switch ev.Name {
	case "session.created":
		if parent != "" {
			ev.Kind = SubagentStart
		}
	case "chat.message":
		if parent != "" {
			ev.Kind = Unknown
		}
	case "session.idle":
		if parent != "" {
			ev.Kind = SubagentStop
			break
		}
		// `opencode run` exits after its one turn, and says nothing more.
		ev.Final = p.Get("subcommand").Str == "run"
	case "tool.execute.after":
		switch x := p.Get("output.metadata.exit"); {
		case x.Type == gjson.Number && x.Int() != 0:
			// A shell command that fails still returns: its exit code is
			// in the metadata.
			ev.OK = false
			ev.Error = "exit code " + x.Raw
		case p.Get("input.tool").Str == "invalid":
			// opencode's stand-in for a call of a tool the agent does not
			// have: nothing ran.
			ev.OK = false
			ev.Error = p.Get("input.args.error").Str
		}
	case "permission.asked":
		ev.Kind = Permission
	case "message.part.updated":
		if p.Get("properties.part.type").String() != "tool" || p.Get("properties.part.state.status").String() != "error" {
			ev.Kind, ev.OK = Unknown, false // not a tool's end: the plugin hands over no other part
			break
		}
		ev.OK = false
	case "session.error":
		switch {
		case parent != "":
			ev.Kind = Unknown
		case ev.ErrorType == "MessageAbortedError":
			ev.Kind = Interrupted
		}
		ev.Final = p.Get("subcommand").Str == "run" && parent == ""
	}
}

//go:embed opencode_plugin.js
var opencodePlugin []byte

// opencodePluginSource is the plugin with its config line filled in.
func opencodePluginSource(command []string, events map[string]time.Duration) []byte {
	return withConfig(opencodePlugin, command, events)
}
