package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options shape one scan.
type Options struct {
	// Subagents counts the session's subagents too: their messages nested in
	// progress lines of the main transcript, and their own transcripts in
	// <session>/subagents/. Either way each message counts once.
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
}

// chunk is the read size: large enough that reads cost nothing next to
// scanning, small enough to stay in cache.
const chunk = 1 << 20

// Scan reads what was appended to the transcript (and its subagents' files)
// since the last scan and counts it.
func (s *Session) Scan(transcript string, opt Options) (Result, error) {
	res := Result{Done: true}
	buf := make([]byte, chunk)
	files := []string{transcript}
	if opt.Subagents {
		files = append(files, subagentFiles(transcript)...)
	}
	for i, path := range files {
		done, rescanned, err := s.scanFile(path, i == 0, opt, &buf, &res)
		if rescanned {
			res.Rescanned = append(res.Rescanned, path)
		}
		if err != nil {
			if i == 0 {
				return res, err
			}
			continue // a subagent file that vanished or cannot be read
		}
		if !done {
			res.Done = false
			break
		}
	}
	return res, nil
}

// subagentFiles lists <session>/subagents/**/agent-*.jsonl, a few levels deep
// (workflow agents nest one level further).
func subagentFiles(transcript string) []string {
	root := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents")
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir() && depth < 3:
				walk(filepath.Join(dir, name), depth+1)
			case e.Type().IsRegular() && strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl"):
				out = append(out, filepath.Join(dir, name))
			}
		}
	}
	walk(root, 0)
	return out
}

// tailSize is how many bytes before the saved offset are fingerprinted.
const tailSize = 64

func (s *Session) scanFile(path string, main bool, opt Options, buf *[]byte, res *Result) (done, rescanned bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, false, err
	}
	dev, ino := fileID(fi)
	m := s.mark(path)
	end := fi.Size()
	if m.Offset > 0 && (m.Dev != dev || m.Ino != ino || end < m.Offset || fingerprint(f, m.Offset) != m.Tail) {
		// Replaced, truncated or rewritten: read it all again. What was
		// counted stays counted, and nothing is counted twice.
		*m = FileMark{Path: path}
		rescanned = true
	}
	m.Dev, m.Ino = dev, ino

	pos := m.Offset // file offset of (*buf)[0]
	carry := 0      // bytes at the start of buf that are an unfinished line
	for pos+int64(carry) < end {
		want := min(int64(len(*buf)-carry), end-pos-int64(carry))
		n, err := f.ReadAt((*buf)[carry:carry+int(want)], pos+int64(carry))
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break // truncated under us; the next scan notices
			}
			return false, rescanned, err
		}
		data := (*buf)[:carry+n]
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 {
			if pos+int64(len(data)) >= end {
				break // a torn last line: it is read once it is whole
			}
			// A line longer than the buffer: grow it and read on.
			bigger := make([]byte, 2*len(*buf))
			copy(bigger, data)
			*buf = bigger
			carry = len(data)
			continue
		}
		if err := s.lines(data[:last+1], main, opt, res); err != nil {
			return false, rescanned, err
		}
		pos += int64(last + 1)
		m.Offset = pos
		carry = copy(*buf, data[last+1:])
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) && pos < end {
			m.Tail = fingerprint(f, m.Offset)
			return false, rescanned, nil
		}
	}
	m.Tail = fingerprint(f, m.Offset)
	return true, rescanned, nil
}

// lines counts every line of region (which ends with a newline) that can
// carry usage; the others are skipped at memchr speed.
func (s *Session) lines(region []byte, main bool, opt Options, res *Result) error {
	for {
		i := bytes.Index(region, usageKey)
		if i < 0 {
			return nil
		}
		start := bytes.LastIndexByte(region[:i], '\n') + 1
		end := i + bytes.IndexByte(region[i:], '\n')
		line := region[start:end]
		region = region[end+1:]

		r, ok := parseLine(line, opt.WantText && main)
		if !ok || (r.progress && !opt.Subagents) {
			continue
		}
		if err := s.count(r, main); err != nil {
			return err
		}
		if main && !r.sidechain && !r.progress {
			if r.model != "" {
				s.Model = r.model
			}
			if r.text != "" {
				s.setText(r.text)
			}
		}
	}
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
