package vpet

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
)

// Session is what one agent session's hooks remember between invocations, so
// that a run's completion knows its duration and whether it produced
// anything, a tool's completion knows its duration, and a session end knows
// whether a run was left open. It lives in the per-user state directory under
// the session's lock and is removed at session end.
type Session struct {
	// AgentName is the session's agent, once an event named it.
	AgentName string `json:"agent_name,omitempty"`
	Run       *Run   `json:"run,omitempty"`
	// Tools are the tools started and not yet completed, by tool call id.
	Tools map[string]Tool `json:"tools,omitempty"`
}

// Tool is an open tool call, under its key (agent.ToolKey) in Tools: its
// ID is not kept. Start is 0 when two open tools without an id shared a key
// and which one started when is unknown.
type Tool = agent.OpenTool

// Run is the session's current (or last) run.
type Run struct {
	Start       int64 `json:"start"` // Unix nanoseconds
	Open        bool  `json:"open"`
	HadResponse bool  `json:"had_response"`
}

// maxTools bounds the open tools remembered: a session whose tool ends never
// arrive (a hook not installed for them) must not grow without end.
const maxTools = 64

// DecodeSession reads saved state; anything unreadable starts afresh.
func DecodeSession(b []byte) *Session {
	s := &Session{}
	if len(b) > 0 && json.Unmarshal(b, s) != nil {
		*s = Session{}
	}
	return s
}

// Encode is the state file's contents.
func (s *Session) Encode() []byte {
	b, _ := json.Marshal(s)
	return b
}

// Empty says there is nothing worth keeping.
func (s *Session) Empty() bool {
	return s.AgentName == "" && s.Run == nil && len(s.Tools) == 0
}

// StartRun opens a new run. A run still open is replaced: Claude Code fires
// no hook when the user interrupts a turn with Esc, so a new prompt is the
// first sign that the last run is over, and it is not known how it ended.
func (s *Session) StartRun(at time.Time) {
	s.Run = &Run{Start: at.UnixNano(), Open: true}
	clear(s.Tools)
}

// Responded records that the run produced something (a tool call).
func (s *Session) Responded() {
	if s.Run != nil {
		s.Run.HadResponse = true
	}
}

// EndRun closes the run and returns it as it was, or nil when none was
// open. continued says the agent resumed a run that had already completed
// (a Stop hook made it go on): its end closes that run again, measured from
// its start, as agentica merges the laps of a held completion. Open tools
// are forgotten: the run is over, however they ended.
func (s *Session) EndRun(continued bool) *Run {
	r := s.Run
	if r == nil || !r.Open && !continued {
		return nil
	}
	ended := *r
	r.Open = false
	clear(s.Tools)
	return &ended
}

// StartTool remembers when a tool started; sub says a subagent runs it
// (Event.Subagent).
func (s *Session) StartTool(id, name string, at time.Time, sub bool) {
	key := agent.ToolKey(id, name)
	if key == "" {
		return
	}
	if s.Tools == nil {
		s.Tools = map[string]Tool{}
	}
	if _, dup := s.Tools[key]; dup && id == "" {
		s.Tools[key] = Tool{Name: name, Sub: sub} // two of them: which ends first is unknown
		return
	}
	if len(s.Tools) >= maxTools {
		return
	}
	s.Tools[key] = Tool{Name: name, Start: at.UnixNano(), Sub: sub}
}

// EndTool forgets a tool and returns its start, if known.
func (s *Session) EndTool(id, name string) (time.Time, bool) {
	key := agent.ToolKey(id, name)
	t, ok := s.Tools[key]
	delete(s.Tools, key)
	if !ok || t.Start == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, t.Start), true
}

// OpenTool is a tool left open when its run was cancelled.
type OpenTool struct {
	ID, Name string
}

// CancelTools forgets the open tools and returns them, in start order.
func (s *Session) CancelTools() []OpenTool { return s.closeTools(true) }

// RefusedTools forgets the main agent's open tools at a turn boundary and
// returns them, in start order: tools refused (by the user or a hook) that
// never got their PostToolUse. Subagents' tools stay open.
func (s *Session) RefusedTools() []OpenTool { return s.closeTools(false) }

func (s *Session) closeTools(subs bool) []OpenTool {
	var tools []agent.OpenTool
	for k, t := range s.Tools {
		if subs || !t.Sub {
			if !strings.HasPrefix(k, "name:") {
				t.ID = k
			}
			tools = append(tools, t)
			delete(s.Tools, k)
		}
	}
	agent.SortOpen(tools)
	open := make([]OpenTool, 0, len(tools))
	for _, t := range tools {
		open = append(open, OpenTool{ID: t.ID, Name: t.Name})
	}
	return open
}

// Since is the duration from start to end in seconds, or nil when it is not
// known or makes no sense (events out of order, a clock that went back).
func Since(start, end time.Time) *Seconds {
	if start.IsZero() || end.Before(start) {
		return nil
	}
	return ptr(Seconds(end.Sub(start).Seconds()))
}
