package agent

import (
	"time"

	"github.com/tidwall/gjson"
)

// auggie is Auggie (Augment Code's CLI, @augmentcode/auggie): Claude Code's
// hooks in ~/.augment/settings.json, seven events, snake_case payloads
// with a conversation and workspace roots (as Cursor's, whose payloads it
// is told apart from by its PascalCase event names). Auggie needs
// Augment's backend, so it is not run here: everything below was read from
// the 0.36.0 bundle (augment.mjs), and the payloads in
// testdata/agents/auggie-0.36.0-from-bundle were built from its own
// constructors.
var auggie = &Dialect{
	Agent:   "auggie",
	Aliases: []string{"augment", "augment-code"},
	Title:   "Auggie",
	Product: "auggie",
	Detect:  detectAuggie,
	Events: []Name{
		{"SessionStart", SessionStart, false},
		{"PromptSubmit", Prompt, false},
		{"PreToolUse", ToolStart, false},
		{"PostToolUse", ToolEnd, false}, // tool_error says whether it failed
		{"Notification", Attention, false},
		{"Stop", TurnEnd, false}, // or Interrupted, Error: agent_stop_cause
		{"SessionEnd", SessionEnd, false},
	},
	Paths: Paths{
		Session:    []string{"conversation_id"},
		SessionEnv: "AUGMENT_CONVERSATION_ID",
		Cwd:        []string{"workspace_roots.0"},
		Prompt:     []string{"user_prompt"},
		// Stop carries the turn's exchange: its answer as the
		// conversation data (with metadata includeConversationData, which
		// install writes) and in the raw exchange the bundle leaves in.
		Message: []string{"conversation.agentTextResponse", "_exchange.exchange.response_text", "notification_message"},
		Error:   []string{"tool_error"},
		// A tool's result, the files it changed (their contents), and the
		// files the turn changed.
		ToolOutput: []string{"tool_output", "file_changes", "conversation.agentCodeResponse", "_exchange"},
	},
	Refine: refineAuggie,
	// The tools 0.36.0 offers the model; codebase-retrieval, remove-files,
	// view-range-untruncated … have no canonical name.
	Tools: map[string]string{
		"launch-process": Bash, "view": Read, "save-file": Write, "str-replace-editor": Edit,
		"apply_patch": ApplyPatch, "grep-search": Grep, "web-fetch": WebFetch, "web-search": WebSearch,
		"sub-agent": Task,
	},
	ToolArgs: map[string][]Alias{
		"view":               {{"path", ArgFilePath}},
		"save-file":          {{"path", ArgFilePath}, {"file_content", ArgContent}},
		"str-replace-editor": {{"path", ArgFilePath}, {"old_str_1", ArgOldString}, {"new_str_1", ArgNewString}},
		"grep-search":        {{"search_term", ArgPattern}, {"directory_absolute_path", ArgPath}},
	},
	Settings: &Settings{
		User: []string{".augment", "settings.json"}, Project: []string{".augment", "settings.json"},
		// Auggie reads its settings with JSON.parse, and checks the hooks
		// against a strict schema: only its seven events, a matcher (a
		// regular expression) only on the tool events, a timeout in
		// milliseconds.
		Strict: true, Shape: Nested, Unit: time.Millisecond,
		Matched: []string{"PreToolUse", "PostToolUse"}, MatchAll: ".*",
		Metadata: map[string]map[string]bool{"Stop": {"includeConversationData": true}},

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"auggie"},
	},
	// PreToolUse reads Claude Code's answer (permissionDecision allow, deny
	// or ask); it fires for every tool, so no card is held for it.
	Reply: droidReply,
}

// auggieEvents are Auggie's event names (Cursor's are camelCase).
var auggieEvents = map[string]bool{
	"SessionStart": true, "PromptSubmit": true, "PreToolUse": true, "PostToolUse": true,
	"Notification": true, "Stop": true, "SessionEnd": true,
}

// detectAuggie: a conversation and workspace roots, as Cursor's payloads
// have, but one of Auggie's event names.
func detectAuggie(p gjson.Result) bool {
	return p.Get("conversation_id").Exists() && p.Get("workspace_roots").Exists() &&
		auggieEvents[p.Get("hook_event_name").Str]
}

func refineAuggie(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "PostToolUse":
		if e := p.Get("tool_error"); e.Type != gjson.Null && e.Exists() && e.String() != "" {
			ev.OK = false
		}
	case "Stop":
		// agent_stop_cause: end_turn, empty_completion, max_iterations,
		// interrupted, error.
		switch p.Get("agent_stop_cause").Str {
		case "interrupted":
			ev.Kind = Interrupted
		case "error":
			ev.Kind = Error
		}
	}
}
