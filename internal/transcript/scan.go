package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/rawfile"
)

// Options shape one scan.
type Options struct {
	// Format is the transcript's writer (Claude Code's unless told).
	Format Format
	// Session is the session's id: Gemini CLI files its subagents' chats
	// under it.
	Session string
	// Subagents counts the session's subagents too: Claude Code's, nested in
	// progress lines of the main transcript and in their own transcripts in
	// <session>/subagents/; Gemini CLI's, in their own chats (see Session).
	// Either way each message counts once.
	Subagents bool
	// Deadline stops the scan at a line boundary; the next scan goes on from
	// there. Zero means no limit.
	Deadline time.Time
	// WantText records the end of the last text block of the main chain
	// (Session.LastText, see Said). It costs a little on every usage line.
	WantText bool
}

// Result says what a scan saw.
type Result struct {
	// Done is true when every file was read to its end (no deadline cut).
	Done bool
	// Rescanned lists the files found rewritten or replaced and read again
	// from the start.
	Rescanned []string
	// Skipped counts the lines longer than MaxLine, which were not read.
	Skipped int
}

// MaxLine bounds a line, and with it the scan's memory: a longer one is
// skipped (and counted in Result.Skipped) rather than held. A line with
// usage is an assistant message, kilobytes; a tool_use that writes a big
// file makes it megabytes. A variable so that tests can lower it.
var MaxLine = 64 << 20

// chunk is the largest read: large enough that reads cost nothing next to
// scanning, small enough to stay in cache.
const chunk = 1 << 20

// Scan reads what was appended to the transcript (and its subagents' files)
// since the last scan and counts it.
func (s *Session) Scan(transcript string, opt Options) (Result, error) {
	if opt.Format == Droid {
		return s.scanDroid(transcript, opt)
	}
	if opt.Format == Cline {
		return s.scanCline(transcript)
	}
	res := Result{Done: true}
	var buf []byte // each file's scan sizes it (scanFile)
	s.index()
	done, rescanned, err := s.scanFile(transcript, transcript, true, opt, &buf, &res.Skipped)
	if rescanned {
		res.Rescanned = append(res.Rescanned, transcript)
	}
	if err != nil || !done {
		res.Done = err == nil && done
		return res, err
	}
	root, prefix := subagentsDir(transcript, opt)
	if root == "" {
		return res, nil
	}
	s.scanSubagents(root, prefix, opt, &buf, &res)
	return res, nil
}

// subagentsDir is where the transcript's subagents' files are, and how
// their names start; "" when they are not counted or the format has none.
func subagentsDir(transcript string, opt Options) (root, prefix string) {
	switch {
	case !opt.Subagents:
		return "", ""
	case opt.Format == Claude:
		root, prefix = filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents"), "agent-"
	case opt.Format == Gemini && opt.Session != "" && opt.Session == filepath.Base(opt.Session) && opt.Session != "..":
		// Gemini CLI records a subagent (invoke_agent) in a chat of its
		// own: chats/<parent session id>/<its session id>.jsonl.
		root = filepath.Join(filepath.Dir(transcript), opt.Session)
	case opt.Format == Qwen && strings.HasSuffix(transcript, ".jsonl") && filepath.Base(filepath.Dir(transcript)) == "chats":
		// Qwen Code: <project>/chats/<session>.jsonl, its subagents in
		// <project>/subagents/<session>/agent-<id>.jsonl.
		root, prefix = filepath.Join(filepath.Dir(filepath.Dir(transcript)), "subagents",
			strings.TrimSuffix(filepath.Base(transcript), ".jsonl")), "agent-"
	}
	return root, prefix
}

// scanSubagents scans the subagents' files under root that may have grown.
func (s *Session) scanSubagents(root, prefix string, opt Options, buf *[]byte, res *Result) {
	now := time.Now()
	full := now.Sub(time.UnixMilli(s.Checked)) > recheckQuiet
	if full {
		s.Checked = now.UnixMilli()
	}
	for _, rel := range s.subagentFiles(root, prefix, full) {
		path := filepath.Join(root, rel)
		if m := s.find(rel); m != nil && m.Offset == m.Size {
			// Read to its end last time. A subagent that has been quiet for
			// a while has most likely finished: it is looked at again only
			// once every recheckQuiet. The others cost one stat.
			if !full && now.Sub(time.UnixMilli(m.MTime)) > quietAfter {
				continue
			}
			if fi, err := os.Stat(path); err == nil && fi.Size() == m.Size && fi.ModTime().UnixMilli() == m.MTime {
				continue
			}
		}
		done, rescanned, err := s.scanFile(path, rel, false, opt, buf, &res.Skipped)
		if rescanned {
			res.Rescanned = append(res.Rescanned, path)
		}
		if err == nil && !done {
			res.Done = false
			return
		}
		// An error is a subagent file that vanished or cannot be read: skip it.
	}
}

// Subagent files that have not grown for quietAfter are checked again only
// every recheckQuiet: a long session can leave hundreds of finished ones.
const (
	quietAfter   = 5 * time.Minute
	recheckQuiet = time.Minute
)

// subagentFiles lists root/**/<prefix>*.jsonl, relative to root, a few levels
// deep (workflow agents nest one level further). The directories are read
// again only when one of them changed (a new file changes its directory's
// mtime) or when full is set; otherwise the files already known are listed.
func (s *Session) subagentFiles(root, prefix string, full bool) []string {
	changed := full || len(s.Dirs) == 0
	for _, d := range s.Dirs {
		if changed {
			break
		}
		fi, err := os.Stat(filepath.Join(root, d.Path))
		changed = err != nil || fi.ModTime().UnixMilli() != d.MTime
	}
	if !changed {
		var out []string
		for _, f := range s.Files[1:] {
			out = append(out, f.Path)
		}
		return out
	}
	s.Dirs = s.Dirs[:0]
	var out []string
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		dir := filepath.Join(root, rel)
		fi, err := os.Stat(dir)
		if err != nil {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		s.Dirs = append(s.Dirs, FileMark{Path: rel, MTime: fi.ModTime().UnixMilli()})
		for _, e := range entries {
			name := filepath.Join(rel, e.Name())
			switch {
			case e.IsDir() && depth < 3:
				walk(name, depth+1)
			case e.Type().IsRegular() && strings.HasPrefix(e.Name(), prefix) && strings.HasSuffix(e.Name(), ".jsonl"):
				out = append(out, name)
			}
		}
	}
	walk("", 0)
	return out
}

// tailSize is how many bytes before the saved offset are fingerprinted.
const tailSize = 64

// scanFile reads path from where the mark named key left off.
func (s *Session) scanFile(path, key string, main bool, opt Options, buf *[]byte, skipped *int) (done, rescanned bool, err error) {
	f, err := rawfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, false, err
	}
	m, rescanned := s.remark(f, fi, key)
	lines := s.lines
	if opt.Format != Claude {
		lines = func(region []byte, main bool, opt Options) error { return s.linesOf(region, main, opt.Format) }
	}
	// The buffer holds what was appended since the last scan, up to a
	// chunk: an event whose transcript has not grown (most of them, in a
	// hook that runs on every tool call) allocates and touches nothing.
	if want := int(min(chunk, fi.Size()-m.Offset)); len(*buf) < want {
		*buf = make([]byte, want)
	}
	r := &fileReader{f: f, m: m, buf: buf, end: fi.Size(), pos: m.Offset, skipped: skipped, format: opt.Format}
	for r.pos+int64(r.carry) < r.end {
		region, st, err := r.next()
		if err != nil {
			return false, rescanned, err
		}
		if st == stopReading {
			break
		}
		if st == readOn {
			continue
		}
		if err := lines(region, main, opt); err != nil {
			return false, rescanned, err
		}
		r.consumed(len(region))
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) && r.pos < r.end {
			m.Tail = fingerprint(f, m.Offset)
			return false, rescanned, nil
		}
	}
	m.Tail = fingerprint(f, m.Offset)
	return true, rescanned, nil
}

// remark is the mark named key, for the file f is: reset when the file was
// replaced, truncated or rewritten (it is then read all again: what was
// counted stays counted, and nothing is counted twice).
func (s *Session) remark(f *os.File, fi os.FileInfo, key string) (m *FileMark, rescanned bool) {
	dev, ino := fileID(f, fi)
	m = s.mark(key)
	end := fi.Size()
	if m.Offset > 0 && (m.Dev != dev || m.Ino != ino || end < m.Offset || fingerprint(f, m.Offset) != m.Tail) {
		*m = FileMark{Path: key}
		rescanned = true
	}
	m.Dev, m.Ino, m.Size, m.MTime = dev, ino, end, fi.ModTime().UnixMilli()
	return m, rescanned
}

// fileReader reads a transcript in whole lines, from a mark on, into a
// buffer it grows up to MaxLine.
type fileReader struct {
	f      *os.File
	m      *FileMark
	buf    *[]byte
	format Format
	end    int64
	pos    int64 // file offset of (*buf)[0]
	carry  int   // bytes at the start of buf that are an unfinished line
	// skipping: inside a line over MaxLine, drop bytes up to its newline.
	skipping bool
	skipped  *int
	data     []byte // what the last read holds
}

// step is what the scan does after a read.
type step int

const (
	countLines  step = iota // the region returned is whole lines
	readOn                  // read again
	stopReading             // the end, or a torn last line
)

// next reads on and returns the whole lines read.
func (r *fileReader) next() ([]byte, step, error) {
	want := min(int64(len(*r.buf)-r.carry), r.end-r.pos-int64(r.carry))
	n, err := r.f.ReadAt((*r.buf)[r.carry:r.carry+int(want)], r.pos+int64(r.carry))
	if n == 0 && err != nil {
		if errors.Is(err, io.EOF) {
			return nil, stopReading, nil // truncated under us; the next scan notices
		}
		return nil, stopReading, err
	}
	data := (*r.buf)[:r.carry+n]
	if r.skipping {
		if data = r.skipRest(data); data == nil {
			return nil, readOn, nil
		}
	}
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 {
		st, err := r.partial(data)
		return nil, st, err
	}
	r.data = data
	return data[:last+1], countLines, nil
}

// consumed moves past the n bytes of whole lines counted.
func (r *fileReader) consumed(n int) {
	r.pos += int64(n)
	r.m.Offset = r.pos
	r.carry = copy(*r.buf, r.data[n:])
}

// skipRest drops the rest of a line over MaxLine from data; nil: read on.
func (r *fileReader) skipRest(data []byte) []byte {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		r.pos += int64(len(data))      // the next scan starts here, mid-line:
		r.m.Offset, r.carry = r.pos, 0 // the rest is no JSON and is skipped
		return nil
	}
	r.pos += int64(i + 1)
	r.m.Offset, r.skipping, data = r.pos, false, data[i+1:]
	if bytes.IndexByte(data, '\n') < 0 {
		r.carry = copy(*r.buf, data) // an unfinished line: read on
		return nil
	}
	return data
}

// partial deals with data that holds no whole line.
func (r *fileReader) partial(data []byte) (step, error) {
	if len(data) >= MaxLine {
		// Too long to hold: skip it, and say so.
		*r.skipped++
		r.pos += int64(len(data))
		r.m.Offset, r.carry, r.skipping = r.pos, 0, true
		return readOn, nil
	}
	if r.pos+int64(len(data)) >= r.end {
		return stopReading, nil // a torn last line: it is read once it is whole
	}
	if skippable(r.format, data) {
		// A huge line that cannot carry usage (Gemini's history replay, a
		// tool's output): passed over without being held.
		next, ok, err := skipLine(r.f, r.pos+int64(len(data)), r.end, *r.buf)
		if err != nil || !ok {
			return stopReading, err // !ok: torn, looked at again once it is whole
		}
		r.pos, r.carry, r.m.Offset = next, 0, next
		return readOn, nil
	}
	// A line longer than the buffer: grow it and read on.
	bigger := make([]byte, min(2*len(*r.buf), MaxLine))
	copy(bigger, data)
	*r.buf = bigger
	r.carry = len(data)
	return readOn, nil
}

// The other lines of a Claude Code transcript that matter: the prompt a user
// line belongs to (to know a turn's final message), and the cost-state
// lines (the API calls no message shows).
var (
	promptKey = []byte(`"promptId"`)
	costKey   = []byte(`"cost-state"`)
)

// lines counts every line of region (which ends with a newline) that can
// carry usage, and follows the turns and the cost-states of the main file;
// the other lines are skipped at memchr speed. Lines are taken in file
// order: what a cost-state covers is what was counted before it.
func (s *Session) lines(region []byte, main bool, opt Options) error {
	keys := [][]byte{usageKey, promptKey, costKey}
	if !main {
		keys[1], keys[2] = nil, nil
	}
	var err error
	eachLine(region, keys, func(line []byte, has func(int) bool) {
		if err != nil {
			return
		}
		if has(1) {
			s.prompt(line)
		}
		if has(2) && opt.Subagents {
			// A cost-state counts subagents too: without them it says
			// nothing about the main conversation alone.
			s.costState(line)
		}
		if !has(0) {
			return
		}
		r, ok := parseLine(line, opt.WantText && main)
		if !ok || (r.progress && !opt.Subagents) {
			return
		}
		var added bool
		if added, err = s.count(r, main); err != nil {
			return
		}
		if main && !r.sidechain && !r.progress {
			if r.model != "" && r.model != s.Model {
				s.Model = strings.Clone(r.model)
			}
			if r.text != "" {
				s.setText(r.text)
			}
			if r.final && added {
				s.TurnEnded = true
			}
		}
	})
	return err
}

// prompt follows a main-chain user line: the prompt it belongs to (its own
// text or a tool's result) is the turn under way, not ended yet. The keys
// read are among a line's first, so a huge tool result is not walked.
func (s *Session) prompt(line []byte) {
	if gjson.GetBytes(line, "type").Str != "user" || gjson.GetBytes(line, "isSidechain").Bool() {
		return
	}
	if id := gjson.GetBytes(line, "promptId").Str; id != "" {
		s.TurnPrompt, s.TurnEnded = hash64([]byte(id)), false
	}
}

// costState reads a cost-state line: Claude Code's cumulative usage of the
// session's whole life (resumes, subagents and the calls written as no
// message, such as /compact's, included), written when a process leaves the
// session. Only a newer one counts (one read again after a rewrite does
// not).
func (s *Session) costState(line []byte) {
	root, ok := object(line)
	if !ok || root.Get("type").Str != "cost-state" {
		return
	}
	var c Usage
	root.Get("modelUsage").ForEach(func(_, m gjson.Result) bool {
		c = c.Add(Usage{In: n(m.Get("inputTokens")), Out: n(m.Get("outputTokens")),
			CacheCreate: n(m.Get("cacheCreationInputTokens")), CacheRead: n(m.Get("cacheReadInputTokens"))})
		return true
	})
	if c == s.Base || c.Max(s.Base) != c {
		return
	}
	s.Base, s.Covered, s.CovTS = c, s.Totals, s.MaxTS
}

// skippable reports whether a line, known by its head, carries nothing for
// the format: the agents other than Claude Code name a line's type in its
// first bytes.
func skippable(f Format, head []byte) bool {
	head = head[:min(len(head), 256)]
	switch f {
	case Gemini:
		return bytes.HasPrefix(head, []byte(`{"$`)) // $set, $rewindTo: no tokens
	case Codex, Copilot:
		i := bytes.Index(head, []byte(`"type":"`))
		if i < 0 {
			return false
		}
		typ := head[i+len(`"type":"`):]
		if j := bytes.IndexByte(typ, '"'); j >= 0 {
			typ = typ[:j]
		} else {
			return false
		}
		switch string(typ) {
		case "token_usage_record", "turn_context", "session.usage_record":
			return false
		}
		return true
	}
	return false
}

// skipLine finds the end of the line that goes on at off, reading into
// buf: the offset after its newline, or ok false if it has none before end.
func skipLine(f *os.File, off, end int64, buf []byte) (next int64, ok bool, err error) {
	for off < end {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), end-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, true, nil
		}
		off += int64(n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, false, nil
			}
			return 0, false, err
		}
	}
	return 0, false, nil
}

// fingerprint hashes the tailSize bytes before off: if they change, the file
// was rewritten and offsets into it mean nothing.
func fingerprint(f *os.File, off int64) uint64 {
	if off == 0 {
		return 0
	}
	start := max(0, off-tailSize)
	b := make([]byte, off-start)
	if _, err := f.ReadAt(b, start); err != nil {
		return 1 // unreadable now: never matches a real fingerprint of 0
	}
	return hash64(b)
}
