// Package agent turns what a coding agent says about its lifecycle into one
// canonical Event.
//
// Every agent speaks its own dialect: Claude Code and Codex send snake_case
// hook JSON named by hook_event_name, Gemini CLI uses its own event names,
// Antigravity sends camelCase JSON with no event name at all, Cursor and
// Copilot use camelCase events, Codex's legacy notify program gets its JSON as
// the last argv argument, and Aider sends nothing. Parse detects the dialect
// and normalizes it; targets only ever see an Event. Nothing here knows about
// a target.
package agent

import (
	"encoding/json"
	"time"

	"github.com/tidwall/gjson"
)

// Kind is what is happening, independent of agent.
type Kind string

// The canonical kinds. ARCHITECTURE.md has the table of which agent event
// becomes which kind.
const (
	Unknown       Kind = ""               // an event this suite deliberately does not map
	SessionStart  Kind = "session_start"  // session alive
	Prompt        Kind = "prompt"         // a turn begins
	Thinking      Kind = "thinking"       // reasoning resumed inside a turn
	ToolStart     Kind = "tool_start"     // about to run a tool
	ToolEnd       Kind = "tool_end"       // a tool finished; see Event.OK
	Permission    Kind = "permission"     // blocked on an approval
	Review        Kind = "review"         // the agent asks its hooks whether a tool may run; no person is asked
	Attention     Kind = "attention"      // waiting on the human otherwise
	TurnEnd       Kind = "turn_end"       // output ready for the human
	Interrupted   Kind = "interrupted"    // the user cut the turn short
	Error         Kind = "error"          // the turn failed
	Compact       Kind = "compact"        // context compaction
	SubagentStart Kind = "subagent_start" // a subagent began
	SubagentStop  Kind = "subagent_stop"  // a subagent finished
	Text          Kind = "text"           // response streaming
	SessionEnd    Kind = "session_end"    // session over
)

// Kinds lists every known kind except Unknown, in lifecycle order.
var Kinds = []Kind{SessionStart, Prompt, Thinking, ToolStart, ToolEnd, Permission, Review,
	Attention, TurnEnd, Interrupted, Error, Compact, SubagentStart, SubagentStop, Text, SessionEnd}

// Agent names a dialect. An --agent value that names no dialect is kept as
// given (Coucou routes by it) and parsed as Claude-shaped JSON, which is what
// the plugins of agents without a dialect write.
type Agent string

// The dialects' names, for this package's own use: each dialect's file says
// all there is to know about its agent.
const (
	Claude      Agent = "claude"
	Gemini      Agent = "gemini"
	Antigravity Agent = "antigravity"
	Codex       Agent = "codex"
	Cursor      Agent = "cursor"
	Copilot     Agent = "copilot"
	Aider       Agent = "aider"
	Generic     Agent = "generic" // no payload and no hint: a shell script or CI job
)

// Event is one lifecycle event in the suite's own terms. Every field but Kind
// and Agent may be empty; a field the agent did not send stays empty rather
// than being invented.
type Event struct {
	Kind  Kind
	Agent Agent
	// Name is the agent's own name for the event, as received (hook_event_name,
	// the positional argument, or the Codex notify type).
	Name string

	Session    string
	Cwd        string
	Transcript string

	// Tool is the tool's name in the canonical vocabulary (tools.go:
	// Claude Code's names, Bash, Read, Edit, …), or the agent's own name
	// for a tool the vocabulary lacks (an MCP tool); AgentTool is the name
	// as the agent sent it. Surfaces act on Tool, and show it.
	Tool      string
	AgentTool string
	ToolUseID string
	// Subagent is the subagent an event is from (its id), "" for the main
	// agent's: a subagent's tools may run past the main agent's turn end
	// (Claude Code runs subagents in the background).
	Subagent string
	// ToolInput is the tool's arguments, a JSON object, or nil: the
	// agent's own, then the canonical names of those that have one
	// (file_path beside Antigravity's TargetFile; tools.go).
	ToolInput json.RawMessage
	// OK is false for a tool_end whose tool failed or was refused.
	OK bool

	Prompt  string
	Message string // last assistant text, or the notification text
	Model   string
	// Reason says why the event happened, in the agent's words: the
	// notification type, the session-start source, the session-end reason, the
	// compaction trigger, Antigravity's termination reason.
	Reason    string
	ErrorType string
	Error     string

	Time time.Time
	// Raw is the payload as received (a JSON object), for targets that forward it.
	Raw []byte
	// Script says the event came from a script's arguments (the generic
	// lifecycle), not from an agent's payload.
	Script bool
	// Final says the session ends with this event though the agent sends no
	// session end (a one-shot run's turn end: codex exec).
	Final bool
	// AnswerPending says a turn end's answer is not in the transcript yet
	// (Copilot CLI writes it after agentStop): a later look may find it.
	AnswerPending bool
	// Notes say what the dialect found reading the agent's files (where a
	// turn end's answer came from, or why there is none), for the debug log.
	Notes []string
}

// Get reads a field of the original payload, for the rare target need that the
// canonical fields do not cover.
func (e *Event) Get(path string) gjson.Result {
	return gjson.GetBytes(e.Raw, path)
}
