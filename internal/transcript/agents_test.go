package transcript_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transcript"
	"github.com/hookwire/hookwire/internal/transcript/transcripttest"
)

var agentFormats = map[string]transcript.Format{"codex": transcript.Codex, "gemini": transcript.Gemini, "copilot": transcript.Copilot}

// Generated sessions of each agent: the scanner, the independent reference
// and the generator agree, in one call and in many.
func TestAgentScanMatchesReference(t *testing.T) {
	for name, f := range agentFormats {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(6) {
				g := transcripttest.NewAgent(f, seed).Turns(60)
				path, err := g.Write(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				var st store
				s, res := st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true})
				want := transcripttest.AgentReference(path, f, g.Session)
				if s.Burn() != want || want != g.Truth || !res.Done {
					t.Errorf("seed %d: scanner %+v, reference %+v, generator %+v", seed, s.Burn(), want, g.Truth)
				}
				if s.Model != g.Model {
					t.Errorf("seed %d: model %q, want %q", seed, s.Model, g.Model)
				}
				if again, _ := st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true}); again.Burn() != s.Burn() {
					t.Errorf("a second scan changed the totals: %+v", again.Burn())
				}
			}
		})
	}
}

// The file grows in random-sized chunks that cut lines anywhere (a record
// torn in two), a hook call between chunks; the totals end exact and never
// pass the truth on the way.
func TestAgentScanIncremental(t *testing.T) {
	for name, f := range agentFormats {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(4) {
				g := transcripttest.NewAgent(f, 100+seed).Turns(40)
				path, _ := g.Write(t.TempDir()) // the subagents' files; the main file grows below
				data := []byte(strings.Join(g.Lines, "\n") + "\n")
				rng := rand.New(rand.NewPCG(seed, 9))
				var st store
				for off := 0; off < len(data); {
					off = min(len(data), off+1+rng.IntN(64<<10))
					os.WriteFile(path, data[:off], 0o600)
					s, _ := st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true})
					if u := s.Burn(); u.In > g.Truth.In || u.Out > g.Truth.Out || u.CacheCreate > g.Truth.CacheCreate || u.CacheRead > g.Truth.CacheRead {
						t.Fatalf("seed %d: %+v passes the truth %+v", seed, u, g.Truth)
					}
				}
				if s, _ := st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true}); s.Burn() != g.Truth {
					t.Errorf("seed %d: %+v, want %+v", seed, s.Burn(), g.Truth)
				}
			}
		})
	}
}

// A file rewritten in place or replaced (a copy written over it, a sync
// tool) is read again without counting anything twice; a lost state
// recounts exactly; a deadline cuts a cold scan into several calls.
func TestAgentScanRewrittenLostDeadline(t *testing.T) {
	for name, f := range agentFormats {
		t.Run(name, func(t *testing.T) {
			g := transcripttest.NewAgent(f, 7).Turns(40)
			dir := t.TempDir()
			path, _ := g.Write(dir)
			var st store
			st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true})
			g.Turns(10)
			g.Write(t.TempDir())
			for name, lines := range g.Subs {
				os.MkdirAll(filepath.Join(dir, g.Session), 0o700)
				os.WriteFile(filepath.Join(dir, g.Session, name), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
			}
			tmp := path + ".new"
			os.WriteFile(tmp, []byte(strings.Join(g.Lines, "\n")+"\n"), 0o600)
			os.Rename(tmp, path)
			s, res := st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true})
			if s.Burn() != g.Truth || len(res.Rescanned) != 1 {
				t.Errorf("after a replacement: %+v (rescanned %v), want %+v", s.Burn(), res.Rescanned, g.Truth)
			}
			os.Remove(st.ids)
			if s, _ = st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true}); s.Burn() != g.Truth {
				t.Errorf("without its id set: %+v, want %+v", s.Burn(), g.Truth)
			}
			var cold store
			calls := 0
			for {
				calls++
				s, res := cold.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true, Deadline: time.Now().Add(-time.Second)})
				if res.Done {
					if s.Burn() != g.Truth {
						t.Errorf("cut by deadlines: %+v, want %+v", s.Burn(), g.Truth)
					}
					break
				}
				if calls > 10000 {
					t.Fatal("never done")
				}
			}
			if calls < 2 {
				t.Errorf("done in %d calls: the deadline was not honoured", calls)
			}
		})
	}
}

// Lines longer than a read (3 MiB tool outputs, Gemini's history replays):
// those that cannot carry usage are passed over without being held, those
// that can are read whole; a file cut inside either is read on later.
func TestAgentScanHugeLines(t *testing.T) {
	for name, f := range agentFormats {
		t.Run(name, func(t *testing.T) {
			g := transcripttest.NewAgent(f, 11)
			g.BigLine = 3 << 20
			g.Turns(12)
			path, _ := g.Write(t.TempDir()) // the subagents' files; the main file grows below
			data := []byte(strings.Join(g.Lines, "\n") + "\n")
			var st store
			for _, cut := range []int{len(data) / 3, len(data) / 2, len(data) - 10, len(data)} {
				os.WriteFile(path, data[:cut], 0o600)
				st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true})
			}
			s, _ := st.call(t, path, transcript.Options{Format: f, Session: g.Session, Subagents: true})
			if want := transcripttest.AgentReference(path, f, g.Session); s.Burn() != want || want != g.Truth {
				t.Errorf("%+v, reference %+v, generator %+v", s.Burn(), want, g.Truth)
			}
		})
	}
}
