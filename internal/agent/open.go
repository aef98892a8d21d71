package agent

import (
	"cmp"
	"slices"
	"strings"
)

// A tool refused by the user or by another hook fires its start and never
// its end (every agent does so): a surface that shows running tools
// remembers each session's open tools, and closes those still open at a
// turn boundary. OpenTool is one, as the surfaces remember it (Coucou's
// nb-hook, VPet's vpet-notify); ToolKey and SortOpen are their one rule.

// OpenTool is a tool call that started and has not ended.
type OpenTool struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Start is in Unix nanoseconds, for the order; 0 when not known.
	Start int64 `json:"start"`
	// Sub marks a subagent's tool (Event.Subagent): a background subagent
	// (Claude Code's) runs on past its session's turn end, so a turn
	// boundary does not close it.
	Sub bool `json:"sub,omitempty"`
}

// Open is the open tool ev starts, named name (the surface's choice of the
// agent's name or the canonical one).
func Open(ev Event, name string) OpenTool {
	return OpenTool{ID: ev.ToolUseID, Name: name, Start: ev.Time.UnixNano(), Sub: ev.Subagent != ""}
}

// ToolKey is what an open tool is remembered by: the tool call's id, else
// "name:" and the tool's name, for dialects that send no id (their tools
// run one at a time); "" when there is neither.
func ToolKey(id, name string) string {
	if id != "" {
		return id
	}
	if name != "" {
		return "name:" + name
	}
	return ""
}

// Key is t's ToolKey.
func (t OpenTool) Key() string { return ToolKey(t.ID, t.Name) }

// SortOpen puts open tools in the order they started (then by key, for
// those that started at once).
func SortOpen(tools []OpenTool) {
	slices.SortFunc(tools, func(a, b OpenTool) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Key(), b.Key()))
	})
}
