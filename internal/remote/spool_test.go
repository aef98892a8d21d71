//go:build unix

package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
)

// newDir is a relay directory, set up.
func newDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state", "hookwire", "relay")
	if err := Create(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// line is a spooled delivery for pulse session s, numbered n in Payload.
func line(s string, n int, keep bool) []byte {
	b, _ := json.Marshal(Delivery{Time: 1, Surface: Pulse, Session: s, Keep: keep, Event: "tool_start", Payload: strconv.Itoa(n)})
	return b
}

func mustAppend(t *testing.T, dir string, b []byte) uint64 {
	t.Helper()
	seq, err := Append(context.Background(), dir, b)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// backlog reads what a relay would replay from the last ack, without
// coalescing: kept.jsonl, then the segments.
func backlog(t *testing.T, dir string) []Delivery {
	t.Helper()
	r := &relay{Relay: Relay{Dir: dir, Err: &bytes.Buffer{}}}
	r.acked.Store(readAcked(dir))
	r.start()
	out := r.readKept()
	segs, _ := segments(filepath.Join(dir, spoolDir))
	for i, s := range segs {
		if s < r.seg {
			continue
		}
		if s > r.seg {
			r.seg, r.off = s, 0
		}
		out = append(out, r.readSegment(filepath.Join(dir, spoolDir), s, i == len(segs)-1)...)
	}
	return out
}

func payloads(ds []Delivery) string {
	var p []string
	for _, d := range ds {
		p = append(p, d.Payload)
	}
	return strings.Join(p, ",")
}

func TestSpoolOrderAndSeq(t *testing.T) {
	dir := newDir(t)
	var seqs []uint64
	for i := range 5 {
		seqs = append(seqs, mustAppend(t, dir, line("a", i, false)))
	}
	got := backlog(t, dir)
	if p := payloads(got); p != "0,1,2,3,4" {
		t.Fatalf("replayed %s, want 0,1,2,3,4", p)
	}
	for i, d := range got {
		if d.Seq != seqs[i] {
			t.Errorf("delivery %d: seq %d, Append said %d", i, d.Seq, seqs[i])
		}
	}
	// The first segment is 1; a Seq is the end of its line.
	data, _ := os.ReadFile(segmentPath(filepath.Join(dir, spoolDir), 1))
	if want := Seq(1, int64(len(data))); seqs[4] != want {
		t.Errorf("last seq %d, want %d (segment 1, offset %d)", seqs[4], want, len(data))
	}
}

func TestSpoolRotates(t *testing.T) {
	dir := newDir(t)
	big := bytes.Repeat([]byte("x"), 60<<10)
	var last uint64
	for i := range 10 {
		b, _ := json.Marshal(Delivery{Time: 1, Surface: Pulse, Event: "text", Payload: strconv.Itoa(i) + string(big)})
		seq := mustAppend(t, dir, b)
		if seq <= last {
			t.Fatalf("seq %d after %d: not rising", seq, last)
		}
		last = seq
	}
	segs, _ := segments(filepath.Join(dir, spoolDir))
	// 60 KiB lines, four to a 256 KiB segment: 10 lines in 3 segments.
	if len(segs) != 3 || segs[0] != 1 || segs[2] != 3 {
		t.Fatalf("segments %v, want [1 2 3]", segs)
	}
	for _, s := range segs {
		fi, _ := os.Stat(segmentPath(filepath.Join(dir, spoolDir), s))
		if fi.Size() > segmentMax {
			t.Errorf("segment %d is %d bytes, past %d", s, fi.Size(), segmentMax)
		}
	}
	if n := len(backlog(t, dir)); n != 10 {
		t.Errorf("replayed %d deliveries, want 10", n)
	}
}

// Past the bound the oldest segment goes, but its keep lines replay first,
// in order, and the rest of the spool after them.
func TestSpoolBoundKeepsKeepLines(t *testing.T) {
	dir := newDir(t)
	pad := strings.Repeat("p", 8<<10)
	n := 0
	add := func(keep bool) {
		b, _ := json.Marshal(Delivery{Time: 1, Surface: Pulse, Session: "s" + strconv.Itoa(n), Keep: keep, Event: "x", Payload: strconv.Itoa(n) + "." + pad})
		mustAppend(t, dir, b)
		n++
	}
	add(true) // a session start, in the first segment
	for range 3 * 600 {
		add(false) // 3 × 600 × 8 KiB: past the 4 MiB bound
	}
	add(true)
	segs, _ := segments(filepath.Join(dir, spoolDir))
	if len(segs) > maxSegs {
		t.Fatalf("%d segments, past the bound of %d", len(segs), maxSegs)
	}
	if segs[0] == 1 {
		t.Fatal("the oldest segment was not dropped")
	}
	got := backlog(t, dir)
	if got[0].Session != "s0" || !got[0].Keep {
		t.Fatalf("first replayed %+v, want the keep line s0", got[0])
	}
	var total int64
	for _, s := range segs {
		fi, _ := os.Stat(segmentPath(filepath.Join(dir, spoolDir), s))
		total += fi.Size()
	}
	if total > spoolMax {
		t.Errorf("segments hold %d bytes, past %d", total, spoolMax)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq <= got[i-1].Seq {
			t.Fatalf("replay out of order at %d: %d after %d", i, got[i].Seq, got[i-1].Seq)
		}
	}
	if last := got[len(got)-1]; last.Session != "s"+strconv.Itoa(n-1) || !last.Keep {
		t.Errorf("last replayed %s, want the keep line s%d", last.Session, n-1)
	}
}

// A keep line already acked is not carried: the desktop has it.
func TestSpoolBoundDropsAckedKeepLines(t *testing.T) {
	dir := newDir(t)
	seq := mustAppend(t, dir, line("a", 0, true))
	os.WriteFile(filepath.Join(dir, ackedFile), []byte(strconv.FormatUint(seq, 10)), 0o600)
	if err := dropOldest(dir, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, keptFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("kept.jsonl holds an acked line (%v)", err)
	}
}

func TestSpoolConcurrentAppenders(t *testing.T) {
	dir := newDir(t)
	const goroutines, each = 4, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := Append(context.Background(), dir, line("g"+strconv.Itoa(g), i, false)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	// And two processes: the flock, not a mutex, keeps their lines whole.
	var procs []*exec.Cmd
	for p := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$")
		cmd.Env = append(os.Environ(), "RELAY_HELPER_DIR="+dir, "RELAY_HELPER_NAME=p"+strconv.Itoa(p))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	wg.Wait()
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	got := backlog(t, dir)
	if len(got) != goroutines*each+2*each {
		t.Fatalf("%d deliveries, want %d", len(got), goroutines*each+2*each)
	}
	next := map[string]int{}
	for _, d := range got {
		n, _ := strconv.Atoi(d.Payload)
		if n != next[d.Session] {
			t.Fatalf("%s: %d after %d: an appender's order was lost", d.Session, n, next[d.Session]-1)
		}
		next[d.Session]++
	}
}

func TestHelperAppender(t *testing.T) {
	dir := os.Getenv("RELAY_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper process of TestSpoolConcurrentAppenders")
	}
	for i := range 50 {
		if _, err := Append(context.Background(), dir, line(os.Getenv("RELAY_HELPER_NAME"), i, false)); err != nil {
			t.Fatal(err)
		}
	}
}

// What another user (or a mistake) put in the relay directory is refused,
// and never waited on.
func TestSpoolRefusesPlanted(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string){
		"spool is a link": func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, spoolDir))
			os.Symlink(t.TempDir(), filepath.Join(dir, spoolDir))
		},
		"segment is a link": func(t *testing.T, dir string) {
			os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), segmentPath(filepath.Join(dir, spoolDir), 1))
		},
		"lock is a FIFO": func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, lockFile), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"segment is a FIFO": func(t *testing.T, dir string) {
			syscall.Mkfifo(segmentPath(filepath.Join(dir, spoolDir), 1), 0o600)
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			dir := newDir(t)
			plant(t, dir)
			start := time.Now()
			if _, err := Append(context.Background(), dir, line("a", 0, false)); err == nil {
				t.Fatal("appended through what was planted")
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestSetUpRefusesForeignDir(t *testing.T) {
	dir := newDir(t)
	if ok, err := SetUp(dir); !ok || err != nil {
		t.Fatalf("SetUp = %v, %v on our own directory", ok, err)
	}
	link := filepath.Join(t.TempDir(), "relay")
	os.Symlink(dir, link)
	if ok, err := SetUp(link); ok || err == nil {
		t.Errorf("SetUp = %v, %v on a link", ok, err)
	}
	defer func(o func(fs.FileInfo) (int, bool)) { safefile.Owner = o }(safefile.Owner)
	safefile.Owner = func(fs.FileInfo) (int, bool) { return os.Getuid() + 1, true }
	if ok, err := SetUp(dir); ok || err == nil {
		t.Errorf("SetUp = %v, %v on another user's directory", ok, err)
	}
	if ok, err := SetUp(filepath.Join(t.TempDir(), "none")); ok || err != nil {
		t.Errorf("SetUp = %v, %v where there is none", ok, err)
	}
}

// A torn last line (a hook killed mid-write) is ended by the next append,
// whose line stays whole; the relay skips the torn one and says so.
func TestSpoolTornLine(t *testing.T) {
	dir := newDir(t)
	mustAppend(t, dir, line("a", 0, false))
	f, _ := os.OpenFile(segmentPath(filepath.Join(dir, spoolDir), 1), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"t":1,"surface":"pul`)
	f.Close()
	// Before the next append, the relay waits for the torn line's end.
	if p := payloads(backlog(t, dir)); p != "0" {
		t.Fatalf("replayed %q before the next append, want 0", p)
	}
	mustAppend(t, dir, line("a", 1, false))
	errs := &bytes.Buffer{}
	r := &relay{Relay: Relay{Dir: dir, Err: errs}}
	r.start()
	got := r.readSegment(filepath.Join(dir, spoolDir), 1, true)
	if p := payloads(got); p != "0,1" {
		t.Errorf("replayed %q, want 0,1", p)
	}
	if !strings.Contains(errs.String(), "is not a delivery: skipped") {
		t.Errorf("stderr %q does not say the torn line was skipped", errs)
	}
}

func TestSpoolLockTimeout(t *testing.T) {
	dir := newDir(t)
	release, err := lock(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	start := time.Now()
	_, err = Append(context.Background(), dir, line("a", 0, false))
	if err == nil {
		t.Fatal("appended while the lock was held")
	}
	if d := time.Since(start); d < LockWithin || d > LockWithin+500*time.Millisecond {
		t.Errorf("gave up after %v, want about %v", d, LockWithin)
	}
}

func TestSpoolRefusesLongLine(t *testing.T) {
	dir := newDir(t)
	long := []byte(fmt.Sprintf(`{"surface":"pulse","payload":%q}`, strings.Repeat("x", MaxLine)))
	if _, err := Append(context.Background(), dir, long); !errors.Is(err, ErrTooLong) {
		t.Errorf("Append of %d bytes: %v, want ErrTooLong", len(long), err)
	}
}

// An emptied spool goes on from past the last ack: Seqs still rise.
func TestSpoolRestartsAfterAck(t *testing.T) {
	dir := newDir(t)
	os.WriteFile(filepath.Join(dir, ackedFile), []byte(strconv.FormatUint(Seq(7, 500), 10)), 0o600)
	if seq := mustAppend(t, dir, line("a", 0, false)); segOf(seq) != 8 {
		t.Errorf("first seq %d is in segment %d, want 8", seq, segOf(seq))
	}
}
