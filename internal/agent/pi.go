package agent

import (
	_ "embed"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// pi is Pi (the pi coding agent, @earendil-works/pi-coding-agent, formerly
// @mariozechner/pi-coding-agent). It runs no command hooks, only TypeScript
// or JavaScript extensions it loads without a build: install writes
// pi_extension.js (embedded below) into its extensions folder, once per
// binary, and the extension hands the events below to the binary as JSON on
// stdin, with --agent pi, each with the session's id, transcript and
// directory. What the extension leaves out and adds is said in it.
// Observed on Pi 1.6.0 (testdata/agents/pi-1.6.0).
var pi = &Dialect{
	Agent:   "pi",
	Aliases: []string{"pi-coding-agent"},
	Title:   "Pi",
	Product: "pi-coding-agent",
	Events: []Name{
		{"session_start", SessionStart, false},
		// A person's prompt, once per run (not an extension's message).
		{"before_agent_start", Prompt, false},
		// tool_call fires only for a call that runs (an unknown tool or
		// invalid arguments skip it); tool_execution_end for every call,
		// with isError.
		{"tool_call", ToolStart, false},
		{"tool_execution_end", ToolEnd, false},
		// agent_settled is the turn's end: Pi will not go on by itself
		// (agent_end may be followed by a retry or a compaction's rerun).
		{"agent_settled", TurnEnd, false},
		{"session_before_compact", Compact, false},
		{"session_shutdown", SessionEnd, false},
	},
	Paths: Paths{
		Session:    []string{"sessionId"},
		Cwd:        []string{"cwd"},
		Transcript: []string{"sessionFile"},
		Tool:       []string{"toolName"},
		ToolUseID:  []string{"toolCallId"},
		Message:    []string{"answer"},
		Error:      []string{"errorMessage"},
		ToolInput:  []string{"input"},
		// tool_execution_end's result (the command's output, the file
		// read): the extension never hands it over, only a failed tool's
		// first line, in error.
		ToolOutput: []string{"result"},
	},
	// The tools 1.6.0 has built in (bash, read, edit, write by default).
	Tools: map[string]string{
		"bash": Bash, "read": Read, "write": Write, "edit": Edit, "grep": Grep, "find": Glob, "ls": LS,
	},
	// read, write and edit name their file path (ls, grep and find a
	// directory, path too: the canonical name's).
	ToolArgs: map[string][]Alias{
		"read": {{"path", ArgFilePath}}, "write": {{"path", ArgFilePath}},
		"edit": {{"path", ArgFilePath}, {"oldText", ArgOldString}, {"newText", ArgNewString}},
	},
	// The session file, sessionFile in every payload: each assistant
	// message with its model call's usage (transcript.Pi).
	Burn:   &Burn{Format: transcript.Pi},
	Refine: refinePi,
	Settings: &Settings{
		User: []string{".pi", "agent", "extensions"}, Project: []string{".pi", "extensions"},
		HomeVar: "PI_CODING_AGENT_DIR", HomeRel: []string{"extensions"},
		Shape: PluginFile, Unit: time.Millisecond,
		Plugin: &Plugin{Ext: ".js", Source: piExtensionSource},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"pi"},
	},
}

func refinePi(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "tool_execution_end":
		ev.OK = !p.Get("isError").Bool()
		if !ev.OK && ev.Error == "" {
			ev.Error = p.Get("error").Str
		}
	case "agent_settled":
		switch {
		case p.Get("aborted").Bool() || p.Get("stopReason").Str == "aborted":
			ev.Kind = Interrupted
		case p.Get("stopReason").Str == "error":
			ev.Kind = Error
		}
	case "session_shutdown":
		// A reload keeps the session (session_start follows, reason
		// "reload", the same id); new, resume and fork leave it.
		if p.Get("reason").Str == "reload" {
			ev.Kind = Unknown
		}
	}
}

//go:embed pi_extension.js
var piExtension []byte

// piExtensionSource is the extension with its config line filled in, as
// the opencode plugin's (withConfig).
func piExtensionSource(command []string, events map[string]time.Duration) []byte {
	return withConfig(piExtension, command, events)
}
