package transcript_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transcript"
	"github.com/hookwire/hookwire/internal/transcript/transcripttest"
)

func write(t testing.TB, g *transcripttest.Generator, dir string) string {
	t.Helper()
	path, err := g.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// store simulates one session's state across hook calls: the saved Session
// and its IDSet file.
type store struct {
	head []byte
	ids  string // the IDSet's file, in a temporary directory
}

// call is one hook invocation: load, scan, save.
func (st *store) call(t testing.TB, path string, opt transcript.Options) (transcript.Session, transcript.Result) {
	t.Helper()
	s, res, _ := st.callNoSave(t, path, opt)
	st.head, _ = s.MarshalBinary()
	return s, res
}

// callNoSave is a call that dies before saving the Session.
func (st *store) callNoSave(t testing.TB, path string, opt transcript.Options) (transcript.Session, transcript.Result, error) {
	t.Helper()
	if st.ids == "" {
		st.ids = filepath.Join(t.TempDir(), "ids")
	}
	var s transcript.Session
	if st.head != nil {
		if err := s.UnmarshalBinary(st.head); err != nil {
			t.Fatalf("state: %v", err)
		}
	}
	set, err := transcript.OpenIDSet(st.ids, &s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Scan(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, res, set.Close()
}

func TestScanMatchesReference(t *testing.T) {
	for seed := range uint64(8) {
		g := transcripttest.New(seed).Turns(80)
		path := write(t, g, t.TempDir())
		for _, subagents := range []bool{true, false} {
			var st store
			s, res := st.call(t, path, transcript.Options{Subagents: subagents})
			want, truth := transcripttest.Reference(path, subagents), g.Truth
			if !subagents {
				truth = g.TruthMain
			}
			if s.Burn() != want || want != truth || !res.Done {
				t.Errorf("seed %d subagents=%v: scanner %+v, reference %+v, generator %+v", seed, subagents, s.Burn(), want, truth)
			}
			if s.Model != "claude-opus-4-6" {
				t.Errorf("model %q", s.Model)
			}
			// Nothing new: nothing added.
			if again, _ := st.call(t, path, transcript.Options{Subagents: subagents}); again.Burn() != s.Burn() {
				t.Errorf("a second scan changed the totals: %+v", again.Burn())
			}
		}
	}
}

// The files grow in random-sized chunks that cut lines anywhere, with a hook
// call between chunks; the totals end exact.
func TestScanIncremental(t *testing.T) {
	for seed := range uint64(6) {
		g := transcripttest.New(100 + seed).Turns(60)
		dir := t.TempDir()
		path := filepath.Join(dir, g.Session+".jsonl")
		pending := map[string][]byte{}
		fileOf := func(name string) string {
			if name == "" {
				return path
			}
			return filepath.Join(dir, g.Session, "subagents", name)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		flush := func(name string, n int) {
			p := fileOf(name)
			os.MkdirAll(filepath.Dir(p), 0o700)
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			n = min(n, len(pending[name]))
			f.Write(pending[name][:n])
			f.Close()
			pending[name] = pending[name][n:]
		}
		var st store
		os.WriteFile(path, nil, 0o600)
		for i, w := range g.Order {
			pending[w.File] = append(pending[w.File], w.Line+"\n"...)
			flush(w.File, rng.IntN(len(pending[w.File])+1))
			if i%3 == 0 {
				st.call(t, path, transcript.Options{Subagents: true})
			}
		}
		for name := range pending {
			flush(name, len(pending[name]))
		}
		s, _ := st.call(t, path, transcript.Options{Subagents: true})
		if s.Burn() != g.Truth {
			t.Errorf("seed %d: %+v, want %+v", seed, s.Burn(), g.Truth)
		}
	}
}

func TestScanRewritten(t *testing.T) {
	g := transcripttest.New(7).Turns(40)
	dir := t.TempDir()
	path := write(t, g, dir)
	var st store
	s, _ := st.call(t, path, transcript.Options{Subagents: true})
	if s.Burn() != g.Truth {
		t.Fatalf("%+v, want %+v", s.Burn(), g.Truth)
	}
	// A tool prunes the file in place: lines without usage go.
	var kept []string
	for _, l := range g.Main {
		if strings.Contains(l, `"usage"`) {
			kept = append(kept, l)
		}
	}
	os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"), 0o600)
	s, res := st.call(t, path, transcript.Options{Subagents: true})
	if s.Burn() != g.Truth || len(res.Rescanned) != 1 {
		t.Errorf("after a rewrite: %+v (rescanned %v), want %+v", s.Burn(), res.Rescanned, g.Truth)
	}
	// Replaced by another file (same content, new inode), then more turns.
	g.Turns(10)
	tmp := path + ".new"
	os.WriteFile(tmp, []byte(strings.Join(g.Main, "\n")+"\n"), 0o600)
	os.Rename(tmp, path)
	write(t, g, dir)
	s, _ = st.call(t, path, transcript.Options{Subagents: true})
	if s.Burn() != g.Truth {
		t.Errorf("after a replacement: %+v, want %+v", s.Burn(), g.Truth)
	}
}

// A lost or corrupt state means a rescan from zero, still exact.
func TestScanLostState(t *testing.T) {
	g := transcripttest.New(9).Turns(30)
	path := write(t, g, t.TempDir())
	var st store
	st.call(t, path, transcript.Options{Subagents: true})
	st.head = []byte("garbage")
	var s transcript.Session
	if err := s.UnmarshalBinary(st.head); err == nil {
		t.Fatal("garbage decoded")
	}
	st.head = nil // the id set stays, stale
	s, _ = st.call(t, path, transcript.Options{Subagents: true})
	if s.Burn() != g.Truth {
		t.Errorf("%+v, want %+v", s.Burn(), g.Truth)
	}
	// A call that dies after adding to the id set, before saving the
	// Session: its entries must not hide those messages from the next call.
	saved := st.head
	g.Turns(10)
	write(t, g, filepath.Dir(path))
	st.callNoSave(t, path, transcript.Options{Subagents: true})
	st.head = saved
	s, _ = st.call(t, path, transcript.Options{Subagents: true})
	if s.Burn() != g.Truth {
		t.Errorf("after a crash: %+v, want %+v", s.Burn(), g.Truth)
	}
	// The id set lost: the session recounts, exactly.
	os.Remove(st.ids)
	s, _ = st.call(t, path, transcript.Options{Subagents: true})
	if s.Burn() != g.Truth {
		t.Errorf("without its id set: %+v, want %+v", s.Burn(), g.Truth)
	}
}

// A scan out of time stops at a line boundary and the next one goes on.
func TestScanDeadline(t *testing.T) {
	g := transcripttest.New(11)
	g.BigLine = 3 << 20 // lines longer than a chunk
	g.Turns(30)
	path := write(t, g, t.TempDir())
	var st store
	calls := 0
	for {
		calls++
		s, res := st.call(t, path, transcript.Options{Subagents: true, Deadline: time.Now().Add(-time.Second)})
		if res.Done {
			if s.Burn() != g.Truth {
				t.Errorf("%+v, want %+v", s.Burn(), g.Truth)
			}
			break
		}
		if calls > 1000 {
			t.Fatal("never done")
		}
	}
	if calls < 3 {
		t.Errorf("done in %d calls: the deadline was not honoured", calls)
	}
}

func TestScanTornLine(t *testing.T) {
	g := transcripttest.New(3).Turns(3)
	all := strings.Join(g.Main, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "t.jsonl")
	cut := strings.LastIndex(all[:len(all)-1], "\n") + 20 // inside the last line
	os.WriteFile(path, []byte(all[:cut]), 0o600)
	var st store
	st.call(t, path, transcript.Options{})
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(all[cut:])
	f.Close()
	s, _ := st.call(t, path, transcript.Options{})
	if want := transcripttest.Reference(path, false); s.Totals != want {
		t.Errorf("%+v, want %+v", s.Totals, want)
	}
}

func TestScanHugeLine(t *testing.T) {
	big := strings.Repeat("z", 20<<20)
	line := `{"type":"assistant","uuid":"u1","timestamp":"2026-11-30T09:00:00.000Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6",` +
		`"content":[{"type":"tool_use","name":"Write","input":{"content":"` + big + `"}}],"usage":{"input_tokens":3,"output_tokens":700,"cache_creation_input_tokens":10,"cache_read_input_tokens":20}}}`
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(line+"\n"), 0o600)
	var st store
	s, _ := st.call(t, path, transcript.Options{})
	if s.Totals != (transcript.Usage{3, 700, 10, 20}) {
		t.Errorf("%+v", s.Totals)
	}
}

func TestScanModelAndText(t *testing.T) {
	lines := []string{
		`{"type":"assistant","timestamp":"2026-11-30T09:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"First."}],"usage":{"output_tokens":1}}}`,
		`{"type":"assistant","timestamp":"2026-11-30T09:00:01Z","requestId":"r2","message":{"id":"m2","model":"<synthetic>","content":[{"type":"text","text":"API Error"}],"usage":{"output_tokens":0}}}`,
		`{"type":"progress","timestamp":"2026-11-30T09:00:02Z","data":{"message":{"type":"assistant","timestamp":"2026-11-30T09:00:02Z","requestId":"r3","message":{"id":"m3","model":"claude-haiku-4-5","content":[{"type":"text","text":"sub"}],"usage":{"output_tokens":5}}}}}`,
		`{"type":"assistant","timestamp":"2026-11-30T09:00:03Z","requestId":"r4","message":{"id":"m4","model":"claude-opus-4-6","content":[{"type":"tool_use","name":"Bash"}],"usage":{"output_tokens":2}}}`,
		`{"type":"assistant","timestamp":"2026-11-30T09:00:04Z","requestId":"r4","message":{"id":"m4","model":"claude-opus-4-6","content":[{"type":"text","text":"All done."}],"usage":{"output_tokens":9}}}`,
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	var st store
	s, res := st.call(t, path, transcript.Options{Subagents: true, WantText: true})
	if s.Model != "claude-opus-4-6" || s.LastText != "All done." || s.Totals.Out != 1+0+5+9 || !res.Done {
		t.Errorf("model %q, text %q, totals %+v", s.Model, s.LastText, s.Totals)
	}
	if !s.Said("Ran it.\n\nAll   done.") || s.Said("All done? No.") {
		t.Error("Said")
	}
}

func TestSessionRoundTrip(t *testing.T) {
	g := transcripttest.New(5).Turns(20)
	path := write(t, g, t.TempDir())
	var st store
	s, _ := st.call(t, path, transcript.Options{Subagents: true})
	s.StartModel, s.PID = "claude-opus-4-6", 4242
	b, _ := s.MarshalBinary()
	var back transcript.Session
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalBinary()
	if !bytes.Equal(b, b2) || back.Burn() != s.Burn() || back.PID != 4242 || len(back.Files) != len(s.Files) {
		t.Errorf("round trip lost something")
	}
	for i := range len(b) {
		var x transcript.Session
		x.UnmarshalBinary(b[:i]) // truncated state never panics
	}
}

// FuzzScan feeds arbitrary bytes, split anywhere across two calls: never a
// panic, never negative, and the same totals as one call over all of it.
func FuzzScan(f *testing.F) {
	g := transcripttest.New(1).Turns(3)
	seed := strings.Join(g.Main, "\n") + "\n"
	f.Add([]byte(seed), 100)
	f.Add([]byte(`{"message":{"usage":{"output_tokens":-5}}}`+"\n"), 3)
	f.Add([]byte("\"usage\"\n\n{\"usage\"}\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		dir := t.TempDir()
		one := filepath.Join(dir, "one.jsonl")
		two := filepath.Join(dir, "two.jsonl")
		os.WriteFile(one, data, 0o600)
		if cut < 0 {
			cut = -cut
		}
		cut %= len(data) + 1
		os.WriteFile(two, data[:cut], 0o600)
		var a, b store
		sa, _ := a.call(t, one, transcript.Options{Subagents: true})
		b.call(t, two, transcript.Options{Subagents: true})
		fh, _ := os.OpenFile(two, os.O_WRONLY|os.O_APPEND, 0)
		fh.Write(data[cut:])
		fh.Close()
		sb, _ := b.call(t, two, transcript.Options{Subagents: true})
		if sa.Burn() != sb.Burn() {
			t.Fatalf("one call %+v, two calls %+v", sa.Burn(), sb.Burn())
		}
		if u := sa.Burn(); u.In < 0 || u.Out < 0 || u.CacheCreate < 0 || u.CacheRead < 0 {
			t.Fatalf("negative %+v", u)
		}
	})
}

// Claude Code's cost-state lines: the session's cumulative usage, written
// when a process leaves the session. What one counts beyond the messages
// written before it (here, /compact's calls) is added; a message written
// after it counts on top; a newer one supersedes it; one read again (a
// rewritten file) changes nothing; without subagents they are not used.
func TestScanCostState(t *testing.T) {
	msg := func(id, ts string, in, out int) string {
		return `{"type":"assistant","timestamp":"` + ts + `","requestId":"r` + id + `","message":{"id":"m` + id + `","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":` +
			itoa(in) + `,"output_tokens":` + itoa(out) + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}`
	}
	cost := func(in, out int) string {
		return `{"type":"cost-state","sessionId":"s","totalCostUSD":0.1,"modelUsage":{"claude-sonnet-4-5":{"inputTokens":` + itoa(in-1) + `,"outputTokens":` + itoa(out-1) +
			`,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.1},"claude-haiku-4-5":{"inputTokens":1,"outputTokens":1,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0}}}`
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	lines := []string{msg("1", "2026-11-30T09:00:01Z", 10, 1), msg("2", "2026-11-30T09:00:02Z", 20, 2),
		cost(30+7, 3+5)} // two messages, and a compaction of 7 in, 5 out
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	var st store
	opt := transcript.Options{Subagents: true}
	if s, _ := st.call(t, path, opt); s.Burn() != (transcript.Usage{In: 37, Out: 8}) || s.Totals != (transcript.Usage{In: 30, Out: 3}) {
		t.Errorf("burn %+v, messages %+v", s.Burn(), s.Totals)
	}
	// A resumed process: its message counts on top, then its cost-state
	// (which counts everything since the start) supersedes the first.
	lines = append(lines, msg("3", "2026-11-30T10:00:00Z", 100, 10))
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	if s, _ := st.call(t, path, opt); s.Burn() != (transcript.Usage{In: 137, Out: 18}) {
		t.Errorf("after a message: %+v", s.Burn())
	}
	lines = append(lines, cost(137+4, 18+4))
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	if s, _ := st.call(t, path, opt); s.Burn() != (transcript.Usage{In: 141, Out: 22}) {
		t.Errorf("after a second cost-state: %+v", s.Burn())
	}
	// Rewritten (pruned of nothing but rewritten in place): read again, the
	// same.
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n\n"), 0o600)
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	os.Chtimes(path, time.Now(), time.Now())
	tmp := path + ".new"
	os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	os.Rename(tmp, path)
	if s, res := st.call(t, path, opt); s.Burn() != (transcript.Usage{In: 141, Out: 22}) || len(res.Rescanned) != 1 {
		t.Errorf("after a rewrite: %+v (rescanned %v)", s.Burn(), res.Rescanned)
	}
	// Without subagents, messages only.
	var main store
	if s, _ := main.call(t, path, transcript.Options{}); s.Burn() != (transcript.Usage{In: 130, Out: 13}) {
		t.Errorf("main only: %+v", s.Burn())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
