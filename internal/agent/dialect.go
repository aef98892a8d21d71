package agent

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// A Dialect is one agent, whole: how to recognise what it sends, what its
// events and fields mean, how it names its tools, where its transcript and
// settings are, and what it reads back on a hook's stdout. Each agent's
// Dialect is in a file of its own (claude.go, codex.go, …); nothing outside
// this package names an agent. Surfaces consume Events and ask the Dialect
// for the agent's reply; install asks it where and how to write hooks.
type Dialect struct {
	// Agent is the --agent name; Aliases are other spellings of it.
	Agent   Agent
	Aliases []string
	// Title is the agent's name for people ("Claude Code").
	Title string
	// Product is the agent's long id, for surfaces that name agents by
	// product ("claude-code"); "" means Agent.
	Product string

	// Detect recognises the agent's payload when no --agent says whose it
	// is; dialects are tried in registry order. Nil: only --agent selects it.
	Detect func(p gjson.Result) bool
	// Runs recognises the agent that ran the hook, from its payload and
	// the hook's environment, when the hook line names another agent (flag,
	// its --agent) or none: agents that run other agents' hooks (Grok Build
	// and Devin CLI run Claude Code's). Tried before --agent and Detect; it
	// must never accept what Claude Code itself sent (runsClaudeHook).
	Runs func(flag string, p gjson.Result, getenv func(string) string) bool
	// Events are the agent's event names, in lifecycle order. A name of
	// kind Unknown is known, and deliberately nothing.
	Events []Name
	// Paths are where the agent's payload keeps each field, beyond the
	// shared, Claude-shaped ones (paths).
	Paths Paths
	// Refine adjusts an event whose kind, OK or fields depend on the
	// payload: the agent's lifecycle quirks. It runs after the fields are
	// filled, in the agent's own tool and argument names; Tools and Args
	// name them after it.
	Refine func(ev *Event, p gjson.Result)
	// Tools names the agent's tools in the canonical vocabulary (tools.go):
	// the key is the agent's name, lower-cased; a key ending in "*" matches
	// the names it begins, and a value ending in "*" keeps the rest. A name
	// not in it is kept (an MCP tool, a tool the vocabulary lacks).
	Tools map[string]string
	// Args are the agent's argument names and the canonical ones, added
	// beside them in the tool's input (never over a field it has), for
	// every tool; ToolArgs the same for one tool, by the key of Tools, and
	// they come first. From is a gjson path ("paths.0").
	Args     []Alias
	ToolArgs map[string][]Alias

	// Burn is where the agent's token usage is; nil when it keeps none
	// that is known.
	Burn *Burn
	// HookRecords says the agent writes a user record into its transcript
	// for each hook it ran: a reader of the transcript would take it for the
	// person answering (Trail Boss's reconcile does), so it gets none.
	HookRecords bool
	// Outcome reads from the transcript how a turn ended, where the turn
	// end does not say (it failed, the user cut it short): a quick read of
	// a file complete when the hook fires. Parse runs it on every turn end
	// that names its transcript, for every surface.
	Outcome func(ev *Event)
	// Answer reads a turn's final answer from the transcript, where the turn
	// end does not carry it (Parse calls it for a TurnEnd when
	// Input.Transcripts is set). An agent that writes it after the hook
	// fires waits up to wait for it, and else sets Event.AnswerPending.
	Answer func(ev *Event, wait time.Duration)

	// Owns reports whether process pid runs the session (the agent's own
	// record of it); Process walks up from a hook to find it. Nil: the
	// agent keeps no such record.
	Owns func(pid int, session string, getenv func(string) string) bool

	// Settings is where and how the agent keeps its hooks; nil when it has
	// none install can write.
	Settings *Settings
	// Reply is what a hook prints on stdout for the event name: the answer
	// to an approval (d), or with None the neutral reply the agent expects
	// after every hook; "" prints nothing. Nil: the agent reads nothing.
	Reply func(name string, r Reply) string
	// Approves reports whether a person's answer to ev can go back to the
	// agent through the hook (an approval card is worth holding the hook
	// for). Nil: never.
	Approves func(ev Event) bool
}

// Burn is the agent's transcript, where its token usage is.
type Burn struct {
	Format transcript.Format
	// Locate finds the transcript when a payload gives no path ("" when it
	// cannot).
	Locate func(ev Event, getenv func(string) string) string
	// Unnamed: no turn end names its transcript, so Parse locates it for
	// the answer too (Kimi Code's Stop). Others name it where it exists.
	Unnamed bool
}

// TranscriptOf is the file that holds the session's usage, and its format;
// "" when the agent writes none that is known. Hooks give the path; where a
// payload does not, the agent's dialect finds it from the session.
func TranscriptOf(ev Event, getenv func(string) string) (string, transcript.Format) {
	d, ok := For(ev.Agent)
	if !ok || d.Burn == nil {
		return "", 0
	}
	if ev.Transcript != "" {
		return ev.Transcript, d.Burn.Format
	}
	if d.Burn.Locate != nil {
		return d.Burn.Locate(ev, getenv), d.Burn.Format
	}
	return "", d.Burn.Format
}

// Name is one of an agent's event names and its kind.
type Name struct {
	Name string
	Kind Kind
	// NoHook: the name is not a hook install writes (another channel's
	// name, or a duplicate of a hook that is written).
	NoHook bool
}

// Alias is an argument name and the canonical name for it.
type Alias struct{ From, To string }

// Paths are payload paths (gjson syntax) per Event field, first non-empty
// string wins.
type Paths struct {
	Session, Cwd, Transcript, Tool, ToolUseID, Prompt, Message, Model, Reason, ErrorType []string
	// Subagent is where a subagent's event names the subagent.
	Subagent []string
	// Error paths may hold a string, a number or a boolean; ToolInput an
	// object, or an object encoded as a string.
	Error, ToolInput []string
	// ToolOutput are where a tool's result is (its output, what it read):
	// what a surface that promises never to carry it drops (ToolOutput).
	// "#" is every element of an array.
	ToolOutput []string
	// SessionEnv is the variable that names the session when the payload
	// does not (Gemini CLI's GEMINI_SESSION_ID).
	SessionEnv string
	// SessionKey names the session when neither the payload nor SessionEnv
	// does (Devin CLI, whose payloads are not documented to carry one): a
	// key of what is there, so that two sessions never merge.
	SessionKey func(getenv func(string) string) string
}

// Settings is where and how an agent keeps its hooks: install's data.
type Settings struct {
	// Commands are the agent's commands, the first its usual one: one of
	// them on PATH tells hookwire setup that the agent is installed.
	Commands []string
	// Owns, when set, are names in the agent's settings directory that it
	// alone makes: that directory is shared (Gemini CLI's ~/.gemini also
	// holds Antigravity's config), so only one of them there tells setup
	// the agent is installed, not the directory.
	Owns []string
	// User and Project are the settings file (for Shapes File, PluginFile
	// and EventFiles: the directory), from the home directory and from the project's root.
	User, Project []string
	// HomeVar names the variable that moves the user settings (the agent's
	// config home), and HomeRel is their path under it (ConfigHome).
	HomeVar string
	HomeRel []string
	// Strict: the agent parses plain JSON; otherwise JSON with comments.
	Strict bool
	Shape  Shape
	// Unit of the timeout field.
	Unit time.Duration
	// Positional: the payload does not name its event, so each hook line
	// names it.
	Positional bool
	// Matched are the events whose entries take a matcher, and MatchAll
	// the matcher that matches every tool ("" is "*"; a regular
	// expression's is ".*").
	Matched  []string
	MatchAll string
	// Metadata is what an event's entry says beside its hooks, by event
	// (Auggie's "metadata": {"includeConversationData": true}).
	Metadata map[string]map[string]bool
	// WithoutTimeout are events whose hooks get no timeout: the agent's own
	// budget for them is the right one.
	WithoutTimeout []string
	// MaxTimeout caps some events' timeout at what the agent accepts.
	MaxTimeout map[string]time.Duration
	// Trust says the agent runs a new or changed hook only once the user
	// has trusted it, by a hash of each hook (Codex's scheme): install says
	// how (TrustStep, where %s is the binary), doctor checks it.
	Trust     bool
	TrustStep string
	// Unflagged: hook lines need no --agent, the payload is recognised
	// without it (the default dialect's).
	Unflagged bool
	// StatusLine: the settings also name a status line command, which a
	// binary with a status line mode can take (install --statusline).
	StatusLine bool
	// RedactsEnv: the agent keeps most environment variables from its hooks
	// unless the settings allow them: doctor checks the binary's.
	RedactsEnv bool
	// Plugin, for Shape PluginFile, is the plugin an agent without command
	// hooks loads instead.
	Plugin *Plugin
	// WindowsShell is the shell the agent runs a hook's command line in on
	// Windows, which decides how install quotes the binary's path there
	// (docs/reference/windows-shells.md): cmd.exe unless it says otherwise.
	WindowsShell Shell
	// Borrows are the agents whose user hooks this one runs too, told
	// apart (Runs): Grok Build runs Claude Code's and Cursor's. Beside
	// theirs, hooks of its own would deliver each of its events twice:
	// setup writes none, doctor says so.
	Borrows []Agent
}

// Shell is a command line's interpreter on Windows.
type Shell string

const (
	// ShellCmd is cmd.exe (/d /s /c): a path in double quotes, or bare.
	ShellCmd Shell = ""
	// ShellBash is Git Bash (bash -c): a path in double quotes, so that its
	// backslashes stay.
	ShellBash Shell = "bash"
	// ShellPowerShell (-Command): a quoted path is a string, so a path is bare,
	// or called with & "...".
	ShellPowerShell Shell = "powershell"
)

// ConfigHome is the agent's config home: its variable (HomeVar) when set,
// else the user settings' directory above HomeRel under home; "" when
// neither is known. The one rule: install and doctor find the settings
// under it, a dialect its own files (Owns, Burn.Locate), --help shows its
// default (home "~").
func (s *Settings) ConfigHome(getenv func(string) string, home string) string {
	if s.HomeVar != "" && getenv != nil {
		if d := getenv(s.HomeVar); d != "" {
			return d
		}
	}
	if home == "" {
		return ""
	}
	n := max(len(s.User)-len(s.HomeRel), 0)
	return filepath.Join(append([]string{home}, s.User[:n]...)...)
}

// Plugin is the source of the plugin file install writes for an agent that
// runs no command hooks, only plugins of its own language: the plugin hands
// the agent's events to a hookwire binary itself.
type Plugin struct {
	// Ext is the file's extension, dot included (".js").
	Ext string
	// Source is the file that runs command (the binary, then its
	// arguments) for each event of events, each run killed after the
	// event's timeout (0: none).
	Source func(command []string, events map[string]time.Duration) []byte
}

// OwnFile reports whether the hooks are a file of our own, one per binary,
// in the settings directory (FileName), rather than entries in the agent's
// settings file.
func (s *Settings) OwnFile() bool {
	return s.Shape == File || s.Shape == PluginFile || s.Shape == NestedFile
}

// FileName is the name of the binary's own file, for an OwnFile shape.
func (s *Settings) FileName(binary string) string {
	if s.Shape == PluginFile && s.Plugin != nil {
		return "hookwire-" + binary + s.Plugin.Ext
	}
	return "hookwire-" + binary + ".json"
}

// Shape is how an agent lays out its hooks.
type Shape int

const (
	// Nested: {"hooks": {"Event": [{"matcher": "*", "hooks": [{"type":
	// "command", "command": …, "timeout": …}]}]}}
	Nested Shape = iota
	// Named: {"<name>": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}],
	// "Stop": [handler]}}, one top-level entry per tool
	Named
	// Flat: {"version": 1, "hooks": {"event": [{"command": …, "timeout": …}]}}
	Flat
	// File: a file of our own, {"version": 1, "hooks": {"event": [{"type":
	// "command", "bash": …, "timeoutSec": …}]}}
	File
	// TopLevel: Nested's events without the "hooks" key around them, the
	// event names the file's own keys: {"Event": [{"matcher": "*",
	// "hooks": [handler]}]} (Factory Droid's hooks.json)
	TopLevel
	// PluginFile: a plugin of our own (Settings.Plugin), one per binary;
	// the agent loads every plugin in the directory.
	PluginFile
	// EventFiles: an executable per event, named after it, in the agent's
	// hooks directory (Cline's): a script of hookwire's, one line per
	// binary, each handed the event's name (Positional).
	EventFiles
	// Tables: TOML, one [[hooks]] table per hook, {event, matcher, command,
	// timeout}, ours at the end of the file (Kimi Code's config.toml).
	Tables
	// NestedFile: a file of our own, one per binary, in Nested's layout, in
	// a directory of hook files the agent loads every one of (Grok Build's
	// ~/.grok/hooks).
	NestedFile
)

// Decision is a person's answer to an approval.
type Decision string

// The decisions. None is no decision: the agent asks in its own way.
const (
	None   Decision = ""
	Allow  Decision = "allow"
	Always Decision = "always" // allow, and the agent's suggested rules with it
	Deny   Decision = "deny"
	Ask    Decision = "ask"
)

// Reply is what goes back to the agent: a decision, with what it needs.
type Reply struct {
	Decision Decision
	// Suggestions are the agent's own suggested permission rules (raw
	// JSON), which Always makes permanent.
	Suggestions []byte
	// UpdatedInput, when set with Allow, replaces the tool's input (an
	// answered question).
	UpdatedInput []byte
	// By names who decided, for the agent's message ("Coucou").
	By string
}

// registry lists every dialect, in detection order: a payload goes to the
// first one whose Detect accepts it, else to Claude Code's.
var registry = []*Dialect{antigravity, auggie, cursor, copilot, kimi, codex, qwen, gemini, droid, grok, devin, qoder, claude, opencode, kilo, pi, cline, aider, muse, hermes, generic}

// Dialects lists the dialects, in registry order.
func Dialects() []*Dialect { return registry }

// byName finds dialects by --agent name or alias.
var byName = func() map[string]*Dialect {
	m := map[string]*Dialect{}
	for _, d := range registry {
		m[string(d.Agent)] = d
		for _, a := range d.Aliases {
			m[a] = d
		}
	}
	return m
}()

// For is an agent's dialect; ok is false for a name no dialect has, which
// is parsed as what the plugins of other agents write (plugin: Claude
// Code's shape).
func For(a Agent) (d *Dialect, ok bool) {
	if d, ok := byName[strings.ToLower(string(a))]; ok {
		return d, true
	}
	return plugin, false
}

// Installable lists the dialects install can write hooks for, in registry order.
func Installable() []*Dialect {
	var out []*Dialect
	for _, d := range registry {
		if d.Settings != nil {
			out = append(out, d)
		}
	}
	return out
}

// InstallableNames are the names of the agents install can write hooks
// for, sorted: the --agent enum of install, uninstall and snippet.
func InstallableNames() []string {
	var out []string
	for _, d := range Installable() {
		out = append(out, string(d.Agent))
	}
	slices.Sort(out)
	return out
}

// HookNames are the agent's event names install writes for a surface that
// consumes kinds, in the dialect's order.
func (d *Dialect) HookNames(kinds []Kind) []string {
	var out []string
	for _, n := range d.Events {
		if n.NoHook || n.Kind == Unknown {
			continue
		}
		for _, k := range kinds {
			if n.Kind == k {
				out = append(out, n.Name)
				break
			}
		}
	}
	return out
}

// KindOf is the kind of one of the agent's event names, before the payload
// refines it; known is false for a name the agent does not have.
func (d *Dialect) KindOf(name string) (k Kind, known bool) {
	for _, n := range d.Events {
		if n.Name == name {
			return n.Kind, true
		}
	}
	return Unknown, false
}

// ProductName is the agent's long id (Product, else its name).
func (d *Dialect) ProductName() string {
	if d.Product != "" {
		return d.Product
	}
	return string(d.Agent)
}

// ToolOutput are the payload paths where the agent keeps a tool's result,
// the shared ones (Claude Code's shape) and its own.
func (d *Dialect) ToolOutput() []string {
	return append(paths.ToolOutput[:len(paths.ToolOutput):len(paths.ToolOutput)], d.Paths.ToolOutput...)
}
