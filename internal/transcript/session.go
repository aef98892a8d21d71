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
// Remembering every counted message would make each call cost O(messages).
// Instead a Session keeps the values of the last windowSize messages and the
// latest timestamp it counted (MaxTS). A line newer than MaxTS cannot have
// been counted; only an older line (a /compact replay, a file rewritten and
// rescanned, a subagent's file catching up) needs the full set of counted
// keys, which is loaded from the append-only ids log only then.
type Session struct {
	Totals Usage
	// Model is the last real model of the main chain, "" until one is seen.
	Model string
	// StartModel is the model the agent announced (Claude's SessionStart).
	StartModel string
	// LastText ends the last text block of the main chain, whitespace
	// collapsed (see Said).
	LastText string
	// PID is the agent's process, once found.
	PID   int
	MaxTS int64
	Files []FileMark

	window []entry // oldest first

	// Logged is how many records of the ids log belong to this state.
	// Records past it (a crash between appending and saving) and a log left
	// by a state that was lost are ignored, and overwritten.
	Logged int64

	// LoadIDs returns the ids log (16-byte records: key, id). It is called
	// at most once per scan, and only when an old line turns up.
	LoadIDs func() ([]byte, error)
	ids     map[uint64]bool // keys, once loaded
	idOnly  map[uint64]bool // message ids, once loaded
	newIDs  []byte          // records to append to the log
}

type entry struct {
	key, id uint64
	usage   Usage
}

// FileMark is how far a file was read, and how to tell that it is still the
// same file: its identity and a fingerprint of the bytes before Offset.
type FileMark struct {
	Path     string
	Offset   int64
	Dev, Ino uint64
	Tail     uint64
}

// count adds a record to the totals, once per message.
func (s *Session) count(r record, main bool) error {
	for i := range s.window {
		if e := &s.window[i]; e.key == r.key {
			grown := e.usage.Max(r.usage)
			s.Totals = s.Totals.Add(grown.Sub(e.usage))
			e.usage = grown
			return nil
		}
	}
	// A /btw side question replays a parent message under a new request id
	// in a sidechain record of the main file.
	replay := main && r.sidechain && r.id != 0
	if r.ts == 0 || r.ts <= s.MaxTS || replay {
		if err := s.loadIDs(); err != nil {
			return err
		}
		if s.ids[r.key] || (replay && s.idOnly[r.id]) {
			return nil
		}
	}
	s.Totals = s.Totals.Add(r.usage)
	s.MaxTS = max(s.MaxTS, r.ts)
	s.remember(r)
	return nil
}

func (s *Session) remember(r record) {
	if len(s.window) == windowSize {
		s.window = append(s.window[:0], s.window[1:]...)
	}
	s.window = append(s.window, entry{key: r.key, id: r.id, usage: r.usage})
	s.newIDs = binary.LittleEndian.AppendUint64(s.newIDs, r.key)
	s.newIDs = binary.LittleEndian.AppendUint64(s.newIDs, r.id)
	if s.ids != nil {
		s.ids[r.key] = true
		s.idOnly[r.id] = true
	}
}

func (s *Session) loadIDs() error {
	if s.ids != nil {
		return nil
	}
	s.ids, s.idOnly = map[uint64]bool{}, map[uint64]bool{}
	add := func(b []byte) {
		for ; len(b) >= 16; b = b[16:] {
			s.ids[binary.LittleEndian.Uint64(b)] = true
			if id := binary.LittleEndian.Uint64(b[8:]); id != 0 {
				s.idOnly[id] = true
			}
		}
	}
	if s.LoadIDs != nil && s.Logged > 0 {
		b, err := s.LoadIDs()
		if err != nil {
			return err
		}
		add(b[:min(int64(len(b)), s.Logged*16)])
	}
	add(s.newIDs)
	for _, e := range s.window {
		s.ids[e.key] = true
		s.idOnly[e.id] = true
	}
	return nil
}

// TakeIDs returns the ids-log records for the messages counted since the
// last call and the byte offset where they belong; the caller writes them
// there, dropping whatever follows, before saving the Session.
func (s *Session) TakeIDs() (at int64, records []byte) {
	at, records = s.Logged*16, s.newIDs
	s.Logged += int64(len(records) / 16)
	s.newIDs = nil
	return at, records
}

// lastTextSize bounds LastText: its end is enough to recognize a message.
const lastTextSize = 256

func (s *Session) setText(text string) {
	t := collapse(text)
	if len(t) > lastTextSize {
		t = t[len(t)-lastTextSize:]
	}
	if t != "" {
		s.LastText = t
	}
}

// Said reports whether the transcript read so far ends with message, the
// final answer an agent reports on a turn end (Claude's
// last_assistant_message): whether the transcript has caught up with it.
func (s *Session) Said(message string) bool {
	return s.LastText != "" && strings.HasSuffix(collapse(message), s.LastText)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// mark returns the FileMark for path, adding one.
func (s *Session) mark(path string) *FileMark {
	for i := range s.Files {
		if s.Files[i].Path == path {
			return &s.Files[i]
		}
	}
	s.Files = append(s.Files, FileMark{Path: path})
	return &s.Files[len(s.Files)-1]
}

// The encoding is a magic number, then unsigned varints and length-prefixed
// strings. It is private to this package and versioned by the magic.
var magic = []byte("HWts1")

// MarshalBinary encodes the session (not the ids log).
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
	b = u(b, uint64(s.PID))
	b = u(b, uint64(s.MaxTS))
	b = u(b, uint64(s.Logged))
	b = u(b, uint64(len(s.Files)))
	for _, f := range s.Files {
		b = str(b, f.Path)
		b = u(u(u(u(b, uint64(f.Offset)), f.Dev), f.Ino), f.Tail)
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
// left empty: a lost state means a rescan from the start, which the ids log
// keeps exact.
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
	n.PID = int(d.uint())
	n.MaxTS = int64(d.uint())
	n.Logged = int64(d.uint())
	for range d.count(1 << 16) {
		f := FileMark{Path: d.str()}
		f.Offset, f.Dev, f.Ino, f.Tail = int64(d.uint()), d.uint(), d.uint(), d.uint()
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
	n.LoadIDs = s.LoadIDs
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
