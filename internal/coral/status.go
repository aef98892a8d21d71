package coral

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// statuses is ARCHITECTURE.md's Coral column for the kinds whose STATUS is a
// fixed phrase. Tool starts, permissions and errors say more (see Tags);
// kinds absent from both (subagents, streamed text) write nothing: they are
// not the session's state.
var statuses = map[agent.Kind]string{
	agent.SessionStart: "Waiting for instructions",
	agent.Prompt:       "Thinking",
	agent.Thinking:     "Thinking",
	agent.ToolEnd:      "Thinking",
	agent.Attention:    "Waiting for input",
	agent.TurnEnd:      "Waiting for instructions",
	agent.Interrupted:  "Interrupted",
	agent.Compact:      "Compacting context",
	agent.SessionEnd:   "Session ended",
}

// idlePrompt is the notification_type of Claude Code's idle notification.
const idlePrompt = "idle_prompt"

// Tags returns the tags an event writes to the log: a SUMMARY for a prompt,
// and a STATUS. home is the user's home directory, for showing paths.
func Tags(ev agent.Event, home string) []Tag {
	var tags []Tag
	if ev.Kind == agent.Prompt {
		if s := SummaryText(Goal(ev.Prompt)); s != "" {
			tags = append(tags, Tag{Summary, s})
		}
	}
	var status string
	switch ev.Kind {
	case agent.ToolStart:
		status = ToolStatus(ev, home)
	case agent.Permission:
		status = "Waiting for approval"
		if tool := permissionTool(ev); tool != "" {
			status += ": " + toolName(tool)
		}
	case agent.Error:
		status = "Stopped: " + errorText(ev)
	case agent.Attention:
		if ev.Reason == idlePrompt {
			// Claude Code's "waiting for your input", a minute into any
			// wait: the status already says what the session waits for
			// (instructions, an approval), so it stays. Writing nothing
			// also leaves the log's age to Coral's needs-input webhook.
			break
		}
		status = statuses[ev.Kind]
	default:
		status = statuses[ev.Kind]
	}
	if status = StatusText(status); status != "" {
		tags = append(tags, Tag{Status, status})
	}
	return tags
}

// permissionTool is the tool waiting for approval (the dialect reads it
// from a notification that names it only in words).
func permissionTool(ev agent.Event) string { return ev.Tool }

// errorText names what stopped the turn: the agent's error type, in words
// (rate_limit → rate limit), else the first line of its message.
func errorText(ev agent.Event) string {
	if ev.ErrorType != "" {
		return strings.NewReplacer("_", " ", "-", " ").Replace(ev.ErrorType)
	}
	if line := FirstLine(ev.Error); line != "" {
		return line
	}
	return "error"
}

// Goal is what a prompt says the session is for: its first meaningful line,
// unless the prompt only acknowledges or nudges ("yes", "go on", "/compact"),
// which says nothing about the goal and must not replace the one shown.
func Goal(prompt string) string {
	line := FirstLine(prompt)
	if acks[strings.ToLower(strings.TrimRight(line, ".!?, "))] {
		return ""
	}
	if strings.HasPrefix(line, "/") && !strings.ContainsAny(line, " \t") {
		return "" // a bare slash command
	}
	return line
}

// acks are whole prompts that carry on a turn rather than set a goal.
var acks = map[string]bool{
	"y": true, "yes": true, "yep": true, "yeah": true, "sure": true, "ok": true, "okay": true, "k": true,
	"n": true, "no": true, "nope": true, "go": true, "go on": true, "go ahead": true, "continue": true,
	"please continue": true, "keep going": true, "proceed": true, "do it": true, "next": true,
	"thanks": true, "thank you": true, "lgtm": true, "retry": true, "try again": true, "again": true,
}

// FirstLine is the first meaningful line of a prompt: not blank, not a lone
// markup tag or code fence, with any Markdown heading, quote or list marker
// taken off. A prompt of nothing but such lines has none.
func FirstLine(s string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimLeft(line, "#>*-+ \t"))
		if line == "" || !hasWordChar(line) || loneTag(line) {
			continue
		}
		return line
	}
	return ""
}

func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// loneTag is a line that is only an XML-like tag, as agents wrap context in
// (<system-reminder>, </context>).
func loneTag(s string) bool {
	return strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") && !strings.ContainsAny(s[1:len(s)-1], "<>")
}

// fit returns s cut to at most n runes: from the end, or for paths from the
// start (the file name is what matters).
func fit(s string, n int, fromStart bool) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return clip(s, n)
	}
	if !fromStart {
		return clip(s, n)
	}
	r := []rune(s)
	kept := string(r[len(r)-(n-1):])
	// Start at a directory boundary: "…/hook/run.go", not "…ok/run.go".
	if i := strings.IndexAny(kept, `/\`); i >= 0 && i < len(kept)-1 {
		kept = kept[i:]
	}
	return text.Ellipsis + kept
}

// displayPath shows a path relative to the working directory when it is
// inside it, with ~ for the home directory otherwise.
func displayPath(p, cwd, home string) string {
	if p == "" {
		return ""
	}
	if cwd != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	if home != "" && home != "/" {
		if p == home {
			return "~"
		}
		if strings.HasPrefix(p, home+string(filepath.Separator)) {
			return "~" + p[len(home):]
		}
	}
	return p
}
