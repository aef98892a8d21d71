package agent

import (
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// copilot is GitHub Copilot CLI: camelCase events and fields, the tool's
// arguments as toolArgs (often an object encoded as a string), a
// millisecond timestamp, and no event name in most payloads.
var copilot = &Dialect{
	Agent:   Copilot,
	Title:   "Copilot CLI",
	Product: "copilot-cli",
	Detect: func(p gjson.Result) bool {
		return p.Get("toolName").Exists() || p.Get("toolArgs").Exists() || p.Get("timestamp").Type == gjson.Number
	},
	Events: []Name{
		{"sessionStart", SessionStart, false},
		{"userPromptSubmitted", Prompt, false},
		{"preToolUse", ToolStart, false},
		// permissionRequest asks the hooks, not a person: it fires for every
		// tool that is not read-only, before Copilot's own rules, even
		// under --allow-all-tools. A person is asked only when notification
		// (permission_prompt) follows; see refineCopilot.
		{"permissionRequest", Review, false},
		{"postToolUse", ToolEnd, false},
		{"postToolUseFailure", ToolEnd, false},
		{"notification", Attention, false},
		{"subagentStart", SubagentStart, false},
		{"subagentStop", SubagentStop, false},
		{"agentStop", TurnEnd, false},
		{"errorOccurred", Error, false},
		{"preCompact", Compact, false},
		{"sessionEnd", SessionEnd, false},
	},
	Paths: Paths{
		Session:    []string{"sessionId"},
		Transcript: []string{"transcriptPath"},
		Tool:       []string{"toolName"},
		ToolUseID:  []string{"toolUseId", "toolCallId"},
		Prompt:     []string{"initialPrompt"},
		ErrorType:  []string{"error.name"},
		ToolInput:  []string{"toolArgs", "toolInput"}, // toolInput on permissionRequest
		ToolOutput: []string{"toolResult"},            // postToolUse's {resultType, textResultForLlm}
	},
	Tools: map[string]string{
		"bash": Bash, "view": Read, "create": Write, "edit": Edit, "str_replace_editor": Edit,
		"grep": Grep, "glob": Glob, "fetch": WebFetch, "web_fetch": WebFetch,
		"read_bash": BashOutput, "write_bash": BashInput, "stop_bash": KillShell, "task": Task,
		"update_todo": TodoWrite, "report_intent": Intent,
	},
	Args: []Alias{{"file_text", ArgContent}, {"old_str", ArgOldString}, {"new_str", ArgNewString}},
	// path is the file of its file tools, the directory of its searches.
	ToolArgs: map[string][]Alias{
		"view": {{"path", ArgFilePath}}, "create": {{"path", ArgFilePath}}, "edit": {{"path", ArgFilePath}},
		"str_replace_editor": {{"path", ArgFilePath}},
	},
	Refine: refineCopilot,
	// Copilot CLI keeps $COPILOT_HOME/session-state/<id>/events.jsonl.
	Burn: &Burn{Format: transcript.Copilot, Locate: func(ev Event, getenv func(string) string) string {
		home := copilotSettings.ConfigHome(getenv, UserHome(getenv))
		if home == "" || !SafeID(ev.Session) {
			return ""
		}
		return filepath.Join(home, "session-state", ev.Session, "events.jsonl")
	}},
	Answer:   copilotAnswer,
	Settings: copilotSettings,
	Reply:    copilotReply,
	Approves: func(Event) bool { return true },
}

func refineCopilot(ev *Event, p gjson.Result) {
	switch ev.Name {
	case "notification", "Notification": // 1.0.102 names it Notification in the payload
		if ev.Reason == "permission_prompt" {
			ev.Kind = Permission // a person is asked, in Copilot's own prompt
		}
	case "postToolUse":
		if r := p.Get("toolResult.resultType").String(); r != "" && r != "success" {
			ev.OK = false
		} else if m := copilotExit().FindStringSubmatch(p.Get("toolResult.textResultForLlm").String()); m != nil && m[1] != "0" {
			// A shell command that failed is a "success": its exit code is
			// only in the text the model reads (1.0.102).
			ev.OK = false
			ev.Error = "exit code " + m[1]
		}
	case "postToolUseFailure":
		ev.OK = false
	case "errorOccurred":
		// Every failed model call is an error, shown when it happens:
		// 1.0.102 says recoverable true alike for a 400 that ends the turn
		// (then sessionEnd "error" in -p; nothing more in the TUI) and for
		// each of the five retries of a 500 or 429, so nothing here tells
		// them apart. A retry that goes on fires preToolUse or agentStop,
		// which take the session back to working on every surface.
		copilotAPIError(ev)
	}
}

// copilotAPIError reads a model call's error: its message is the API's
// error object as JSON ({"type","message"}, or {"error":{…}}), whose own
// message and type say more than the text whole, and more than the
// JavaScript class name (error.name, "Error").
func copilotAPIError(ev *Event) {
	if ev.ErrorType == "Error" {
		ev.ErrorType = ""
	}
	api := gjson.Parse(ev.Error)
	if !api.IsObject() {
		return
	}
	if m := firstString(api, []string{"error.message", "message"}); m != "" {
		ev.Error = m
	}
	if t := firstString(api, []string{"error.type", "type"}); t != "" && t != "error" {
		ev.ErrorType = t
	}
}

// copilotExit is the last line of Copilot CLI's shell tool result.
// It is compiled on first use: package init runs in every hook of every
// binary, and only Copilot CLI's postToolUse needs it.
var copilotExit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<shellId: [^>\s]+ completed with exit code (-?\d+)>\s*$`)
})

// copilotReply: Copilot CLI 1.0.102 reads {"behavior","message"} on
// permissionRequest and ignores permissionDecision; with no answer it
// decides as it would without the hook (its own prompt, or a denial in -p).
// It reads a JSON object after every hook.
func copilotReply(name string, r Reply) string {
	if len(r.UpdatedInput) > 0 {
		return "" // it takes no changed input: no answer
	}
	if name == "permissionRequest" {
		switch r.Decision {
		case Allow, Always:
			return `{"behavior":"allow"}`
		case Deny:
			return `{"behavior":"deny","message":"Denied from ` + by(r) + `"}`
		}
		return ""
	}
	return "{}"
}

// copilotAnswer: agentStop has no answer; events.jsonl has it, written
// behind (in a short session, the file itself may be a moment away).
func copilotAnswer(ev *Event, wait time.Duration) {
	if ev.Message != "" {
		return
	}
	for deadline := time.Now().Add(wait); ; {
		a, found, _ := transcript.CopilotAnswer(ev.Transcript, transcript.TailLimits{})
		if found {
			ev.Message, ev.AnswerPending = a, false
			return
		}
		ev.AnswerPending = true
		if time.Now().Add(copilotPoll).After(deadline) {
			return
		}
		time.Sleep(copilotPoll)
	}
}

// CopilotSettle is how long a Copilot turn end that must be sent at once
// waits for its answer to reach the transcript, and copilotPoll how often it
// looks.
const (
	CopilotSettle = 600 * time.Millisecond
	copilotPoll   = 20 * time.Millisecond
)

// copilotSettings are Copilot CLI's Settings: its Burn.Locate finds the config home through them,
// as install does (Settings.ConfigHome).
var copilotSettings = &Settings{
	User: []string{".copilot", "hooks"}, Project: []string{".github", "hooks"},
	HomeVar: "COPILOT_HOME", HomeRel: []string{"hooks"},
	Strict: true, Shape: File, Unit: time.Second, Positional: true,

	// Its commands: one on PATH tells hookwire setup it is installed.
	Commands: []string{"copilot"},
	// A hook's "powershell" command on Windows, its "bash" elsewhere
	// (docs/reference/windows-shells.md).
	WindowsShell: ShellPowerShell,
}
