package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/state"
)

// The spool is relay/spool/<%010d segment>.jsonl, one Delivery per line
// (without its Seq: a line's Seq is where it ends), appended by the hooks
// themselves under the flock on relay/lock: a delivery is durable the moment
// its hook returns, whether or not a desktop is connected, and no counter
// file is needed. A segment rotates at 256 KiB; past 16 segments (4 MiB) the
// oldest goes, its keep lines (a session's start and end) first carried to
// kept.jsonl, which replays before the segments.

// Seq is a line's place in the spool: its segment, and the byte offset of
// its end in it. Rising, without a counter.
func Seq(segment uint32, end int64) uint64 { return uint64(segment)<<32 | uint64(end) }

func segOf(seq uint64) uint32 { return uint32(seq >> 32) }
func offOf(seq uint64) int64  { return int64(seq & 0xffffffff) }

// LockWithin bounds the wait for the spool's lock: a hook never stalls on a
// hook (or a relay) that holds it; it gives up and says so in its log.
const LockWithin = 500 * time.Millisecond

// ErrTooLong refuses a delivery whose line would not fit the wire.
var ErrTooLong = errors.New("longer than a wire line")

// Append adds one delivery line (JSON, without its newline) to the spool in
// dir, under the spool's lock, within ctx and LockWithin. It returns the
// line's Seq.
func Append(ctx context.Context, dir string, line []byte) (uint64, error) {
	if len(line) > MaxLine-64 { // room for the Seq the relay adds
		return 0, fmt.Errorf("%d bytes: %w", len(line), ErrTooLong)
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		return 0, errors.New("a delivery line holds a newline")
	}
	release, err := lock(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer release()
	return appendLocked(dir, line)
}

func appendLocked(dir string, line []byte) (uint64, error) {
	sdir := filepath.Join(dir, spoolDir)
	if err := state.SafeDir(sdir); err != nil {
		return 0, err
	}
	segs, err := segments(sdir)
	if err != nil {
		return 0, err
	}
	head := uint32(1)
	if len(segs) > 0 {
		head = segs[len(segs)-1]
	} else if acked := readAcked(dir); acked > 0 {
		head = segOf(acked) + 1 // the spool was emptied: Seqs still rise
	}
	f, size, err := openSegment(sdir, head)
	if err != nil {
		return 0, err
	}
	if size > 0 && size+int64(len(line))+1 > segmentMax {
		f.Close()
		head++
		if f, size, err = openSegment(sdir, head); err != nil {
			return 0, err
		}
		segs = append(segs, head)
		for len(segs) > maxSegs {
			if err := dropOldest(dir, segs[0]); err != nil {
				f.Close()
				return 0, err
			}
			segs = segs[1:]
		}
	}
	defer f.Close()
	buf := make([]byte, 0, len(line)+2)
	if size > 0 && !endsLine(f, size) {
		// A torn last line (a hook killed mid-write, a full disk): end it,
		// so that this line stays whole; the relay skips the torn one.
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if _, err := f.Write(buf); err != nil {
		// A full disk may have taken part of it: cut it off, so that no
		// torn line (or a whole one whose hook was told it failed) stays.
		f.Truncate(size)
		return 0, err
	}
	return Seq(head, size+int64(len(buf))), nil
}

// openSegment opens (creating) a segment for appending: a regular file of
// ours, never through a link or into a FIFO.
func openSegment(sdir string, seg uint32) (*os.File, int64, error) {
	f, err := safefile.Open(segmentPath(sdir, seg), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func endsLine(f *os.File, size int64) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], size-1)
	return err == nil && b[0] == '\n'
}

func segmentPath(sdir string, seg uint32) string {
	return filepath.Join(sdir, fmt.Sprintf("%010d%s", seg, segmentExt))
}

// segments lists the spool's segments, oldest first; other names are not
// the spool's and are left alone.
func segments(sdir string) ([]uint32, error) {
	d, err := os.Open(sdir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []uint32
	for _, n := range names {
		num, ok := strings.CutSuffix(n, segmentExt)
		if !ok || len(num) != 10 {
			continue
		}
		if v, err := strconv.ParseUint(num, 10, 32); err == nil {
			out = append(out, uint32(v))
		}
	}
	slices.Sort(out)
	return out, nil
}

// dropOldest removes segment seg from a full spool, its keep lines not yet
// acked carried to kept.jsonl first (with their Seq), under the lock.
func dropOldest(dir string, seg uint32) error {
	sdir := filepath.Join(dir, spoolDir)
	data, err := safefile.ReadFile(segmentPath(sdir, seg))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	acked := readAcked(dir)
	var kept []byte
	eachLine(data, func(end int64, line []byte) {
		d, ok := decode(line)
		if !ok || !d.Keep || Seq(seg, end) <= acked {
			return
		}
		d.Seq = Seq(seg, end)
		if b, err := json.Marshal(d); err == nil {
			kept = append(append(kept, b...), '\n')
		}
	})
	if len(kept) > 0 {
		if err := appendKept(dir, kept); err != nil {
			return err
		}
	}
	return os.Remove(segmentPath(sdir, seg))
}

// appendKept adds lines to kept.jsonl; past keptMax its oldest lines go
// (thousands of sessions' ends: a desktop away that long misses the oldest).
func appendKept(dir string, lines []byte) error {
	path := filepath.Join(dir, keptFile)
	old, err := safefile.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	all := append(old, lines...)
	for len(all) > keptMax {
		i := bytes.IndexByte(all, '\n')
		if i < 0 {
			all = nil
			break
		}
		all = all[i+1:]
	}
	return safefile.WriteFile(path, all, 0o600)
}

// eachLine calls fn with every complete line of data and the offset of its
// end (past its newline); a last line without its newline is left out.
func eachLine(data []byte, fn func(end int64, line []byte)) (complete int64) {
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		fn(int64(off+i+1), data[off:off+i])
		off += i + 1
		complete = int64(off)
	}
	return complete
}

// decode reads a spooled line: a Delivery for a known surface.
func decode(line []byte) (Delivery, bool) {
	var d Delivery
	if len(line) == 0 || len(line) > MaxLine || json.Unmarshal(line, &d) != nil {
		return d, false
	}
	switch d.Surface {
	case Pulse, Coucou, VPet:
		return d, true
	}
	return d, false
}

// readAcked is the last Seq the desktop acked (0: none, or unreadable).
func readAcked(dir string) uint64 {
	b, err := safefile.ReadFile(filepath.Join(dir, ackedFile))
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v
}

// lock takes the spool's flock, waiting until ctx ends or LockWithin
// passes. The lock file must be a regular file of ours.
func lock(ctx context.Context, dir string) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, LockWithin)
	defer cancel()
	f, err := safefile.Open(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		ok, err := state.TryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() { state.Unlock(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("the spool's lock is held (%v): %w", LockWithin, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// Backlog is what the spool holds, for doctor.
type Backlog struct {
	Segments int    `json:"segments"`
	Bytes    int64  `json:"bytes"`      // the segments' and kept.jsonl's
	Unacked  int    `json:"unacked"`    // deliveries not acked yet
	KeptLine int    `json:"kept_lines"` // kept.jsonl's lines
	Acked    uint64 `json:"acked"`
}

// ReadBacklog counts the spool's deliveries, without its lock: a count.
func ReadBacklog(dir string) (Backlog, error) {
	var b Backlog
	b.Acked = readAcked(dir)
	kept, err := safefile.ReadFile(filepath.Join(dir, keptFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	b.Bytes += int64(len(kept))
	eachLine(kept, func(int64, []byte) { b.KeptLine++ })
	sdir := filepath.Join(dir, spoolDir)
	segs, err := segments(sdir)
	if errors.Is(err, fs.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return b, err
	}
	b.Segments = len(segs)
	for _, s := range segs {
		data, err := safefile.ReadFile(segmentPath(sdir, s))
		if err != nil {
			return b, err
		}
		b.Bytes += int64(len(data))
		eachLine(data, func(end int64, _ []byte) {
			if Seq(s, end) > b.Acked {
				b.Unacked++
			}
		})
	}
	return b, nil
}
