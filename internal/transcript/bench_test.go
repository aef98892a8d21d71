package transcript_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transcript"
	"github.com/hookwire/hookwire/internal/transcript/transcripttest"
)

// bigSession writes a generated session of at least size bytes under dir.
func bigSession(b *testing.B, dir string, size int64, bigLine int) (*transcripttest.Generator, string) {
	b.Helper()
	g := transcripttest.New(1)
	g.BigLine = bigLine
	for {
		g.Turns(20)
		path, err := g.Flush(dir)
		if err != nil {
			b.Fatal(err)
		}
		if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
			return g, path
		}
	}
}

// BenchmarkIncremental is the cost of one hook call after one more turn was
// appended, on a small and on a huge transcript: O(delta) means the same.
//
//	go test -run '^$' -bench Incremental -benchtime 200x ./internal/transcript/
func BenchmarkIncremental(b *testing.B) {
	for _, c := range []struct {
		name string
		size int64
	}{{"1MiB", 1 << 20}, {"1GiB", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			g, path := bigSession(b, dir, c.size, 256<<10)
			opt := transcript.Options{Subagents: true, WantText: true}
			var st store
			st.call(b, path, opt) // the cold scan, not measured
			quiet(b, path)
			st.call(b, path, opt) // and the minute-long recheck of quiet files
			var spent time.Duration
			for b.Loop() {
				g.Turns(1)
				g.Flush(dir)
				start := time.Now()
				st.call(b, path, opt)
				spent += time.Since(start)
			}
			b.ReportMetric(float64(spent.Microseconds())/float64(b.N), "µs/call")
			b.ReportMetric(0, "ns/op") // includes writing the turn: not the point
			if s, _ := st.call(b, path, opt); s.Burn() != g.Truth {
				b.Fatalf("%+v, want %+v", s.Burn(), g.Truth)
			}
		})
	}
}

// BenchmarkColdScan is the throughput of a first scan of a large transcript
// (page cache warm), in MB/s.
//
//	go test -run '^$' -bench ColdScan -benchtime 3x ./internal/transcript/
func BenchmarkColdScan(b *testing.B) {
	dir := b.TempDir()
	g, path := bigSession(b, dir, 1<<30, 256<<10)
	fi, _ := os.Stat(path)
	size := fi.Size()
	os.ReadFile(path) // warm the page cache
	b.SetBytes(size)
	for b.Loop() {
		var s transcript.Session
		if _, err := s.Scan(path, transcript.Options{WantText: true}); err != nil {
			b.Fatal(err)
		}
		if s.Totals != g.TruthMain {
			b.Fatalf("%+v, want %+v", s.Totals, g.TruthMain)
		}
	}
}

// quiet dates the subagents' files an hour back: in a session this long,
// all but the running ones finished long ago.
func quiet(b *testing.B, transcript string) {
	old := time.Now().Add(-time.Hour)
	root := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents")
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		os.Chtimes(filepath.Join(root, e.Name()), old, old)
	}
}

// BenchmarkAgentIncremental is BenchmarkIncremental for Codex rollouts,
// Gemini CLI chats and Copilot CLI events files.
//
//	go test -run '^$' -bench AgentIncremental -benchtime 50x ./internal/transcript/
func BenchmarkAgentIncremental(b *testing.B) {
	for name, f := range agentFormats {
		for _, c := range []struct {
			name string
			size int64
		}{{"1MiB", 1 << 20}, {"1GiB", 1 << 30}} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				dir := b.TempDir()
				g, path := bigAgent(b, dir, f, c.size)
				opt := transcript.Options{Format: f, Session: g.Session, Subagents: true}
				var st store
				st.call(b, path, opt) // the cold scan, not measured
				quietDir(filepath.Join(dir, g.Session))
				st.call(b, path, opt) // and the minute-long recheck of quiet files
				var spent time.Duration
				var each []time.Duration
				for b.Loop() {
					g.Turns(1)
					g.Flush(dir)
					start := time.Now()
					st.call(b, path, opt)
					each = append(each, time.Since(start))
					spent += each[len(each)-1]
				}
				// The median too: on a shared machine a few calls wait
				// for a core, and the mean shows them.
				slices.Sort(each)
				b.ReportMetric(float64(spent.Microseconds())/float64(b.N), "µs/call")
				b.ReportMetric(float64(each[len(each)/2].Microseconds()), "µs/call-p50")
				b.ReportMetric(0, "ns/op")
				if s, _ := st.call(b, path, opt); s.Burn() != g.Truth {
					b.Fatalf("%+v, want %+v", s.Burn(), g.Truth)
				}
				os.Remove(path)
			})
		}
	}
}

// BenchmarkAgentColdScan is the throughput of a first scan of a 1 GiB
// Codex, Gemini CLI or Copilot CLI file (page cache warm), in MB/s.
//
//	go test -run '^$' -bench AgentColdScan -benchtime 2x ./internal/transcript/
func BenchmarkAgentColdScan(b *testing.B) {
	for name, f := range agentFormats {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			g, path := bigAgent(b, dir, f, 1<<30)
			fi, _ := os.Stat(path)
			os.ReadFile(path)
			b.SetBytes(fi.Size())
			for b.Loop() {
				var s transcript.Session
				if _, err := s.Scan(path, transcript.Options{Format: f, Session: g.Session, Subagents: true}); err != nil {
					b.Fatal(err)
				}
				if s.Burn() != g.Truth {
					b.Fatalf("%+v, want %+v", s.Burn(), g.Truth)
				}
			}
			os.Remove(path)
		})
	}
}

func bigAgent(b *testing.B, dir string, f transcript.Format, size int64) (*transcripttest.Agent, string) {
	b.Helper()
	g := transcripttest.NewAgent(f, 1)
	g.BigLine = 256 << 10
	for {
		g.Turns(20)
		path, err := g.Flush(dir)
		if err != nil {
			b.Fatal(err)
		}
		if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
			return g, path
		}
	}
}

// quietDir dates the files in dir an hour back (Gemini CLI's subagents'
// chats): in a session this long, all but the running ones finished long
// ago.
func quietDir(dir string) {
	old := time.Now().Add(-time.Hour)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.Chtimes(filepath.Join(dir, e.Name()), old, old)
	}
}
