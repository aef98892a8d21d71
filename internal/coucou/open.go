package coucou

import (
	"cmp"
	"encoding/json"
	"os"
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
//
// One small file per open tool, written at PreToolUse and removed at its
// PostToolUse: no lock and no read-modify-write on the tool path, and
// parallel tool calls never wait for each other.

const (
	openStale   = 7 * 24 * time.Hour
	gcAbove     = 256 // state files before a boundary collects stale ones
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
	if ev.Session == "" || !pre && !post && !boundary(event) || ev.Subagent != "" {
		return nil
	}
	id := agent.ToolKey(ev.ToolUseID, ev.Tool)
	if (pre || post) && id == "" {
		return nil
	}
	open := state.Open
	if inv.DryRun() {
		open = state.OpenReadOnly // a dry run changes nothing on disk
	}
	store, err := open(inv.Getenv, "nb-hook")
	if err != nil {
		return nil
	}
	prefix := state.Key(ev.Session) + ".tool."
	switch {
	case pre:
		// The closing line names the tool as the app saw it start: the
		// payload's own name, else the canonical one the relay filled in.
		name := cmp.Or(ev.Get("tool_name").Str, ev.Tool)
		b, _ := json.Marshal(agent.Open(ev, name))
		store.Write(prefix+state.Key(id), b)
		return nil
	case post:
		store.Remove(prefix + state.Key(id))
		return nil
	}
	return closing(ev, event, takeOpen(store, prefix))
}

// takeOpen reads and forgets the open tools whose files start with prefix,
// in start order, collecting stale files of every session when there are
// many.
func takeOpen(store *state.Store, prefix string) []agent.OpenTool {
	entries, err := os.ReadDir(store.Dir())
	if err != nil {
		return nil
	}
	if len(entries) > gcAbove {
		store.GC(openStale)
	}
	var tools []agent.OpenTool
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || strings.HasSuffix(name, ".lock") || strings.HasPrefix(name, ".") {
			continue
		}
		b, err := store.Read(name)
		store.Remove(name)
		var t agent.OpenTool
		if err == nil && json.Unmarshal(b, &t) == nil {
			tools = append(tools, t)
		}
	}
	agent.SortOpen(tools)
	return tools
}

// closing are the payloads, in Claude's vocabulary, that end the tools
// left open at the boundary event.
func closing(ev agent.Event, event string, tools []agent.OpenTool) []map[string]any {
	var closed []map[string]any
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
	return closed
}
