package transcript

import (
	"encoding/binary"
	"errors"
	"strings"
)

// windowSize is how many recently counted messages keep their values, so
// that a message whose lines straddle two calls adds only its increase.
const windowSize = 256

// Session is the persistent scan state of one session: how far each file was
// read, the totals, and what is needed to count each message once.
//
// The values of the last windowSize messages are kept, so that a message
// whose lines straddle two calls adds only its increase. A line newer than
// the newest one counted (MaxTS) cannot have been counted; an older one (a
// /compact replay, a rescan after a rewrite, a subagent's file catching up)
// is looked up in the IDSet of every counted key.
type Session struct {
	Totals Usage
	// Model is the last real model of the main chain, "" until one is seen.
	Model string
	// StartModel is the model the agent announced (Claude's SessionStart).
	StartModel string
	// LastText ends the last text block of the main chain, whitespace
	// collapsed (see Said).
	LastText string
	// PID is the agent's process, once found; -1 once looked for and not
	// found (pulse-claude looks again at the session's next start).
	PID   int
	MaxTS int64
	// Files are the main transcript (by its path) and the subagents' files
	// (by their path under <session>/subagents).
	Files []FileMark
	// Dirs are the subagent directories as last listed (path, MTime).
	Dirs []FileMark
	// Checked is when every subagent file was last looked at (Unix ms).
	Checked int64
	// Epoch and Gen tie the Session to its IDSet (see there).
	Epoch, Gen uint64

	// Base is the newest cost-state's cumulative usage; Covered is what the
	// messages counted had reached when it was read (and those counted
	// since with a time up to CovTS, written before it). Burn adds what
	// Base has beyond Covered: the calls no message shows.
	Base, Covered Usage
	CovTS         int64

	// TurnPrompt hashes the promptId of the last main-chain user line;
	// TurnEnded is set once an assistant message ended that turn.
	TurnPrompt uint64
	TurnEnded  bool
	// FinalTS is when the last turn-ending message was written (Copilot
	// CLI, Unix ms); PromptTS when the agent said the turn began.
	FinalTS, PromptTS int64

	window []entry // oldest first
	files  map[string]int
	ids    *IDSet          // while open; else mem is used
	mem    map[uint64]bool // the counted keys of a Session kept in memory only
}

type entry struct {
	key, id uint64
	usage   Usage
}

// FileMark is how far a file was read, and how to tell that it is still the
// same file: its identity and a fingerprint of the bytes before Offset. Size
// and MTime are as last seen: a file that kept both has nothing new.
type FileMark struct {
	Path        string
	Offset      int64
	Dev, Ino    uint64
	Tail        uint64
	Size, MTime int64
}

// count adds a record to the totals, once per message. added is true for a
// message not counted before.
func (s *Session) count(r record, main bool) (added bool, err error) {
	for i := range s.window {
		if e := &s.window[i]; e.key == r.key {
			grown := e.usage.Max(r.usage)
			s.grow(grown.Sub(e.usage), r.ts)
			e.usage = grown
			return false, nil
		}
	}
	// A /btw side question replays a parent message under a new request id
	// in a sidechain record of the main file.
	replay := main && r.sidechain && r.id != 0
	if r.ts == 0 || r.ts <= s.MaxTS || replay {
		seen, err := s.has(r.key)
		if err == nil && !seen && replay {
			seen, err = s.has(r.id)
		}
		if err != nil || seen {
			return false, err
		}
	}
	if len(s.window) == windowSize {
		s.window = append(s.window[:0], s.window[1:]...)
	}
	s.window = append(s.window, entry{key: r.key, id: r.id, usage: r.usage})
	if err := s.add(r.key); err != nil {
		return false, err
	}
	if r.id != 0 {
		if err := s.add(r.id); err != nil {
			return false, err
		}
	}
	s.grow(r.usage, r.ts)
	s.MaxTS = max(s.MaxTS, r.ts)
	return true, nil
}

// grow adds a message's usage (or its increase) to the totals; a message
// written before the newest cost-state is covered by it.
func (s *Session) grow(u Usage, ts int64) {
	s.Totals = s.Totals.Add(u)
	if s.Base != (Usage{}) && ts != 0 && ts <= s.CovTS {
		s.Covered = s.Covered.Add(u)
	}
}

// Burn is the session's lifetime usage: every message counted once, and
// the calls that a cost-state counted beyond them.
func (s *Session) Burn() Usage {
	extra := s.Base.Sub(s.Covered).Max(Usage{})
	return s.Totals.Add(extra)
}

// EndedSince reports whether the transcript read so far holds a message that
// ended a turn, written at or after since (Unix ms; 0: any): Copilot CLI's
// final answer, whose agentStop names nothing else.
func (s *Session) EndedSince(since int64) bool {
	return s.TurnEnded && s.FinalTS >= since
}

// Finished reports whether the transcript read so far holds the final
// message of the turn that promptID began (Claude Code's prompt_id, on
// UserPromptSubmit and Stop): an assistant message that ended the turn,
// after the turn's last user line. Unlike a message's text, a prompt id
// never repeats.
func (s *Session) Finished(promptID string) bool {
	return promptID != "" && s.TurnEnded && s.TurnPrompt == hash64([]byte(promptID))
}

func (s *Session) has(k uint64) (bool, error) {
	if s.ids != nil {
		return s.ids.Has(k)
	}
	return s.mem[k], nil
}

func (s *Session) add(k uint64) error {
	if s.ids != nil {
		return s.ids.Add(k)
	}
	if s.mem == nil {
		s.mem = map[uint64]bool{}
	}
	s.mem[k] = true
	return nil
}

// restart forgets what was counted, to count it all again.
func (s *Session) restart() {
	*s = Session{StartModel: s.StartModel, PID: s.PID, ids: s.ids}
}

// lastTextSize bounds LastText: its end is enough to recognize a message.
const lastTextSize = 256

func (s *Session) setText(text string) {
	t := collapse(text)
	if len(t) > lastTextSize {
		t = t[len(t)-lastTextSize:]
	}
	if t != "" {
		s.LastText = strings.Clone(t) // t may alias the scan buffer
	}
}

// Said reports whether the transcript read so far ends with message, the
// final answer an agent reports on a turn end (Claude's
// last_assistant_message): whether the transcript has caught up with it.
func (s *Session) Said(message string) bool {
	return s.LastText != "" && strings.HasSuffix(collapse(message), s.LastText)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func (s *Session) index() {
	s.files = make(map[string]int, len(s.Files))
	for i, f := range s.Files {
		s.files[f.Path] = i
	}
}

// find returns the FileMark for key, or nil.
func (s *Session) find(key string) *FileMark {
	if i, ok := s.files[key]; ok {
		return &s.Files[i]
	}
	return nil
}

// mark returns the FileMark for key, adding one.
func (s *Session) mark(key string) *FileMark {
	if m := s.find(key); m != nil {
		return m
	}
	s.files[key] = len(s.Files)
	s.Files = append(s.Files, FileMark{Path: key})
	return &s.Files[len(s.Files)-1]
}

// The encoding is a magic number, then unsigned varints and length-prefixed
// strings. It is private to this package and versioned by the magic.
var magic = []byte("HWts5")

// MarshalBinary encodes the session (its IDSet is a file of its own).
func (s *Session) MarshalBinary() ([]byte, error) {
	b := append([]byte(nil), magic...)
	u := binary.AppendUvarint
	str := func(b []byte, v string) []byte { return append(u(b, uint64(len(v))), v...) }
	usage := func(b []byte, x Usage) []byte {
		return u(u(u(u(b, uint64(x.In)), uint64(x.Out)), uint64(x.CacheCreate)), uint64(x.CacheRead))
	}
	b = usage(b, s.Totals)
	b = str(b, s.Model)
	b = str(b, s.StartModel)
	b = str(b, s.LastText)
	b = u(b, uint64(int64(s.PID))) // -1 (not found) wraps, and back
	b = u(b, uint64(s.MaxTS))
	b = u(u(b, s.Epoch), s.Gen)
	b = u(b, uint64(s.Checked))
	b = usage(usage(b, s.Base), s.Covered)
	b = u(u(b, uint64(s.CovTS)), s.TurnPrompt)
	b = u(b, map[bool]uint64{false: 0, true: 1}[s.TurnEnded])
	b = u(u(b, uint64(s.FinalTS)), uint64(s.PromptTS))
	b = u(b, uint64(len(s.Dirs)))
	for _, d := range s.Dirs {
		b = u(str(b, d.Path), uint64(d.MTime))
	}
	b = u(b, uint64(len(s.Files)))
	for _, f := range s.Files {
		b = str(b, f.Path)
		b = u(u(u(u(b, uint64(f.Offset)), f.Dev), f.Ino), f.Tail)
		b = u(u(b, uint64(f.Size)), uint64(f.MTime))
	}
	b = u(b, uint64(len(s.window)))
	for _, e := range s.window {
		b = binary.LittleEndian.AppendUint64(b, e.key)
		b = binary.LittleEndian.AppendUint64(b, e.id)
		b = usage(b, e.usage)
	}
	return b, nil
}

var errCorrupt = errors.New("corrupt session state")

// UnmarshalBinary decodes what MarshalBinary wrote. On error the session is
// left as it was: a lost state means a recount from the start.
func (s *Session) UnmarshalBinary(b []byte) (err error) {
	d := decoder{b: b}
	if !d.prefix(magic) {
		return errCorrupt
	}
	var n Session
	n.Totals = d.usage()
	n.Model = d.str()
	n.StartModel = d.str()
	n.LastText = d.str()
	n.PID = int(int64(d.uint()))
	n.MaxTS = int64(d.uint())
	n.Epoch, n.Gen = d.uint(), d.uint()
	n.Checked = int64(d.uint())
	n.Base, n.Covered = d.usage(), d.usage()
	n.CovTS, n.TurnPrompt = int64(d.uint()), d.uint()
	n.TurnEnded = d.uint() == 1
	n.FinalTS, n.PromptTS = int64(d.uint()), int64(d.uint())
	for range d.count(1 << 16) {
		n.Dirs = append(n.Dirs, FileMark{Path: d.str(), MTime: int64(d.uint())})
	}
	for range d.count(1 << 20) {
		f := FileMark{Path: d.str()}
		f.Offset, f.Dev, f.Ino, f.Tail = int64(d.uint()), d.uint(), d.uint(), d.uint()
		f.Size, f.MTime = int64(d.uint()), int64(d.uint())
		n.Files = append(n.Files, f)
	}
	for range d.count(windowSize) {
		e := entry{key: d.u64(), id: d.u64()}
		e.usage = d.usage()
		n.window = append(n.window, e)
	}
	if d.err != nil || len(d.b) != 0 {
		return errCorrupt
	}
	*s = n
	return nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) prefix(p []byte) bool {
	if len(d.b) < len(p) || string(d.b[:len(p)]) != string(p) {
		return false
	}
	d.b = d.b[len(p):]
	return true
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) count(limit int) int {
	n := d.uint()
	if n > uint64(limit) {
		d.err = errCorrupt
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.err = errCorrupt
		d.b = nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.err = errCorrupt
		d.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) usage() Usage {
	return Usage{int64(d.uint()), int64(d.uint()), int64(d.uint()), int64(d.uint())}
}
