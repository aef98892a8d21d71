package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/rawfile"
)

// TailLimits bound LastAssistantText's read from the end of a transcript. A
// zero field takes its default.
type TailLimits struct {
	// Window is the size of each read, going backwards: 64 KiB.
	Window int
	// MaxLine is the longest line read: 16 MiB. A longer line ends the search,
	// since what it was cannot be told without reading it all.
	MaxLine int
	// MaxRead bounds the bytes read in all: 32 MiB.
	MaxRead int64
}

func (l TailLimits) withDefaults() TailLimits {
	if l.Window <= 0 {
		l.Window = 64 << 10
	}
	if l.MaxLine <= 0 {
		l.MaxLine = 16 << 20
	}
	if l.MaxRead <= 0 {
		l.MaxRead = 32 << 20
	}
	return l
}

// errStop ends a backwards walk early.
var errStop = errors.New("stop")

// LastAssistantText returns the text of the last main-chain assistant entry
// of a transcript: its text blocks, in order, joined by a blank line. It is
// what an agent's turn end reports as the last assistant message, for agents
// and versions that do not send it.
//
// The file is read backwards from its end, a window at a time, so the cost
// does not grow with the transcript. An entry is one message: Claude Code
// writes one line per content block, all sharing message.id, so the lines
// of the last assistant message are gathered up to the previous user entry
// or message. A line counts as an assistant entry when its type or its
// message's role (or its own role) is "assistant"; sidechain lines (/btw,
// old-style subagents) and nested ones (progress) are not the main chain.
// A last line that is torn (still being written) does not parse, and is
// passed over like any line that is not JSON.
//
// found is false when no assistant entry lies within the limits; text is
// then "". An entry with no text block (a turn that ended on a tool call)
// gives found true and text "".
func LastAssistantText(path string, lim TailLimits) (text string, found bool, err error) {
	var c collector
	err = eachLineBackwards(path, lim, c.line)
	if err != nil && !errors.Is(err, errStop) {
		return "", false, err
	}
	if !c.found {
		return "", false, nil
	}
	for i, j := 0, len(c.texts)-1; i < j; i, j = i+1, j-1 {
		c.texts[i], c.texts[j] = c.texts[j], c.texts[i]
	}
	return strings.Join(c.texts, "\n\n"), true, nil
}

// collector gathers the last assistant entry, line by line, last first.
type collector struct {
	found bool
	id    string   // the entry's message.id; "" for a one-line entry
	texts []string // its text blocks, last first
}

var (
	assistantWord = []byte(`"assistant"`)
	userWord      = []byte(`"user"`)
)

// line looks at one line; errStop ends the walk. tooLong is a line past
// MaxLine, whose content is not known.
func (c *collector) line(line []byte, tooLong bool) error {
	if tooLong {
		return errStop // before the entry: the newest line is unknown; after it: the entry ends
	}
	// Before the entry is found only assistant lines matter, and most lines
	// (tool results, snapshots) are passed over without being parsed.
	// After it, a user line ends it.
	if !bytes.Contains(line, assistantWord) && (!c.found || !bytes.Contains(line, userWord)) {
		return nil
	}
	role, id, content := tailEntry(line)
	switch {
	case role == "user" && c.found:
		return errStop
	case role != "assistant":
		return nil
	case !c.found:
		c.found, c.id = true, id
		c.texts = appendText(c.texts, content)
		if id == "" {
			return errStop
		}
	case id != c.id:
		return errStop // an earlier message
	default:
		c.texts = appendText(c.texts, content)
	}
	return nil
}

// tailEntry reads a line's role ("assistant", "user", or "" for anything else:
// not JSON, a sidechain, a system or progress line), its message id and its
// content.
func tailEntry(line []byte) (role, id string, content gjson.Result) {
	if !validLine(line) {
		return "", "", content
	}
	root := gjson.ParseBytes(line)
	if !root.IsObject() || root.Get("isSidechain").Bool() {
		return "", "", content
	}
	msg := root.Get("message")
	switch typ := root.Get("type").String(); {
	case typ == "assistant" || typ == "user":
		role = typ
	case typ == "" || typ == "message":
		role = msg.Get("role").String()
		if role == "" {
			role = root.Get("role").String()
		}
	}
	if role != "assistant" && role != "user" {
		return "", "", content
	}
	content = msg.Get("content")
	if !msg.IsObject() {
		content = root.Get("content")
	}
	return role, msg.Get("id").String(), content
}

// appendText adds a content's text, its blocks last first. Content is an
// array of blocks (of which the "text" ones count), or a plain string, or
// an object with a text (the shapes Trail Boss's own reader accepts).
func appendText(texts []string, content gjson.Result) []string {
	switch {
	case content.Type == gjson.String:
		if content.Str != "" {
			texts = append(texts, content.Str)
		}
	case content.IsArray():
		blocks := content.Array()
		for i := len(blocks) - 1; i >= 0; i-- {
			if b := blocks[i]; b.Get("type").String() == "text" {
				if t := b.Get("text").String(); t != "" {
					texts = append(texts, t)
				}
			}
		}
	case content.IsObject():
		if t := content.Get("text").String(); t != "" {
			texts = append(texts, t)
		}
	}
	return texts
}

// eachLineBackwards calls fn with every line of the first size bytes of f,
// the last first, without its newline (nor a carriage return before it).
// A line longer than lim.MaxLine is passed as nil with tooLong set. It
// stops at fn's first error, or with nil once lim.MaxRead bytes were read
// (lim's zero fields: the defaults).
func eachLineBackwards(path string, lim TailLimits, fn func(line []byte, tooLong bool) error) error {
	f, err := rawfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	b := &backReader{f: f, lim: lim.withDefaults(), size: fi.Size(), pos: fi.Size()}
	for b.pos > 0 {
		if b.read >= b.lim.MaxRead {
			return nil
		}
		buf, err := b.window()
		if err != nil {
			return err
		}
		if err := b.lines(buf, fn); err != nil {
			return err
		}
	}
	if b.partLen > 0 || b.tooLong {
		return b.emit(nil, fn) // the file's first line
	}
	return nil
}

// backReader reads a file by windows from its end, and hands its lines on,
// the last first. fn, the callers' function, is passed along rather than
// kept: kept, it (and what it holds) would escape to the heap.
type backReader struct {
	f    *os.File
	lim  TailLimits
	size int64
	pos  int64 // file offset where the unread part ends
	read int64 // bytes read so far
	// parts are the current line's known end, as read: last part first;
	// partLen their total length.
	parts   [][]byte
	partLen int
	tooLong bool   // the current line passed MaxLine: its start is being skipped
	spare   []byte // a window buffer that no part refers to
}

// window reads the next window back.
func (b *backReader) window() ([]byte, error) {
	n := min(int64(b.lim.Window), b.pos, b.lim.MaxRead-b.read)
	buf := b.spare
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	b.spare = nil
	if _, err := b.f.ReadAt(buf, b.pos-n); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	b.pos -= n
	b.read += n
	return buf, nil
}

// lines hands on the lines that end in buf, last first, and keeps the
// start of buf: the end of a line whose start lies further back.
func (b *backReader) lines(buf []byte, fn func(line []byte, tooLong bool) error) error {
	data := buf
	for {
		i := bytes.LastIndexByte(data, '\n')
		if i < 0 {
			break
		}
		if b.pos+int64(i)+1 < b.size { // not the newline that ends the file
			if err := b.emit(data[i+1:], fn); err != nil {
				return err
			}
		}
		data = data[:i]
	}
	if !b.tooLong && len(data) > 0 {
		if b.partLen+len(data) > b.lim.MaxLine {
			b.tooLong, b.parts, b.partLen = true, b.parts[:0], 0
		} else {
			b.parts = append(b.parts, data)
			b.partLen += len(data)
		}
	}
	if len(b.parts) == 0 {
		b.spare = buf // nothing refers to it: reuse it
	}
	return nil
}

// emit hands on the line that starts with head and ends with the parts.
func (b *backReader) emit(head []byte, fn func(line []byte, tooLong bool) error) error {
	if b.tooLong {
		b.tooLong = false
		return fn(nil, true)
	}
	line := head
	if len(b.parts) > 0 {
		line = make([]byte, 0, len(head)+b.partLen)
		line = append(line, head...)
		for i := len(b.parts) - 1; i >= 0; i-- {
			line = append(line, b.parts[i]...)
		}
	}
	b.parts, b.partLen = b.parts[:0], 0
	return fn(bytes.TrimSuffix(line, []byte("\r")), false)
}
