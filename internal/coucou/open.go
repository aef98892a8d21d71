package coucou

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/state"
)

// A tool refused by the user or by another hook fires PreToolUse and never
// PostToolUse (every agent does so): the app would show it running until
// the session ends. nb-hook remembers the main agent's open tools per
// session, and at the next turn boundary (a prompt, the turn's end, an
// error, an interrupt, the session's end) relays a PostToolUseFailure for
// each before the event itself. A subagent's tools are not remembered:
// Claude Code 2.1.328 runs subagents in the background, past the turn end.

// openTool is a tool that started and has not ended.
type openTool struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Start int64  `json:"start"` // Unix nanoseconds, for the order
}

const (
	maxOpen     = 64 // a session whose tool ends are not hooked must not grow without end
	openLock    = 500 * time.Millisecond
	openStale   = 7 * 24 * time.Hour
	refusedText = "no PostToolUse: the tool was refused or never ran"
)

// boundary reports whether the event (in Claude's names) ends a turn.
func boundary(event string) bool {
	switch event {
	case "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd", "Interrupt":
		return true
	}
	return false
}

// refusedTools updates the session's open tools for the event and returns
// the payloads (in Claude's vocabulary) of those a turn boundary closes.
func refusedTools(inv *hook.Invocation, ev agent.Event, event string) []map[string]any {
	pre, post := event == "PreToolUse", event == "PostToolUse" || event == "PostToolUseFailure"
	if ev.Session == "" || !pre && !post && !boundary(event) || ev.Get("agent_id").String() != "" {
		return nil
	}
	id := ev.ToolUseID
	if id == "" && ev.Tool != "" {
		id = "name:" + ev.Tool
	}
	if (pre || post) && id == "" {
		return nil
	}
	store, err := state.Open(inv.Getenv, "nb-hook")
	if err != nil {
		return nil
	}
	name := state.Key(ev.Session) + ".tools"
	if !pre {
		// Most of these find nothing open: then there is nothing to lock for.
		if b, err := store.Read(name); err == nil && b == nil {
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(inv.Context(), openLock)
	defer cancel()
	release, err := store.Lock(ctx, name)
	if err != nil {
		return nil
	}
	defer release()
	b, _ := store.Read(name)
	open := map[string]openTool{}
	if len(b) > 0 && json.Unmarshal(b, &open) != nil {
		open = map[string]openTool{}
	}
	var closed []map[string]any
	switch {
	case pre:
		if len(open) == 0 {
			store.GC(openStale)
		}
		if len(open) < maxOpen {
			open[id] = openTool{ID: ev.ToolUseID, Name: ev.Tool, Start: ev.Time.UnixNano()}
		}
	case post:
		delete(open, id)
	default:
		tools := slices.SortedFunc(maps.Values(open), func(a, b openTool) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.ID+a.Name, b.ID+b.Name))
		})
		for _, t := range tools {
			p := map[string]any{"hook_event_name": "PostToolUseFailure", "session_id": ev.Session,
				"tool_name": t.Name, "error": refusedText}
			if event == "Interrupt" {
				// As Claude Code says it of a tool the user cut short.
				p["error"], p["is_interrupt"] = "Interrupted by user", true
			}
			if t.ID != "" {
				p["tool_use_id"] = t.ID
			}
			if ev.Cwd != "" {
				p["cwd"] = ev.Cwd
			}
			closed = append(closed, p)
		}
		clear(open)
	}
	if len(open) == 0 {
		store.Remove(name)
	} else if b, err := json.Marshal(open); err == nil {
		store.Write(name, b)
	}
	return closed
}
