package transcript_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/transcript"
)

// served sums what the scripted API served (testdata/recorded/*/served.jsonl,
// one line per API call), each wire mapped to the four figures by the
// meaning of docs/pulse.md, from the API's own fields: a computation that shares
// nothing with the transcript readers. Gemini's JSON-mode calls (the model
// router's classification) are left out and counted apart: Gemini CLI
// writes them nowhere.
func served(t *testing.T, path string) (sum transcript.Usage, unwritten int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct {
			Wire  string `json:"wire"`
			JSON  string `json:"json"`
			Usage struct {
				// Anthropic Messages, OpenAI Responses
				InputTokens        int64 `json:"input_tokens"`
				OutputTokens       int64 `json:"output_tokens"`
				InputTokensDetails struct {
					Cached     int64 `json:"cached_tokens"`
					CacheWrite int64 `json:"cache_write_tokens"`
				} `json:"input_tokens_details"`
				CacheCreationInput int64 `json:"cache_creation_input_tokens"`
				CacheReadInput     int64 `json:"cache_read_input_tokens"`
				// Gemini
				Prompt     int64 `json:"promptTokenCount"`
				Candidates int64 `json:"candidatesTokenCount"`
				Cached     int64 `json:"cachedContentTokenCount"`
				Thoughts   int64 `json:"thoughtsTokenCount"`
				ToolPrompt int64 `json:"toolUsePromptTokenCount"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		u := e.Usage
		switch e.Wire {
		case "anthropic":
			sum = sum.Add(transcript.Usage{In: u.InputTokens, Out: u.OutputTokens, CacheCreate: u.CacheCreationInput, CacheRead: u.CacheReadInput})
		case "responses":
			d := u.InputTokensDetails
			sum = sum.Add(transcript.Usage{In: u.InputTokens - d.Cached - d.CacheWrite, Out: u.OutputTokens, CacheCreate: d.CacheWrite, CacheRead: d.Cached})
		case "gemini":
			if e.JSON != "" {
				unwritten++
				continue
			}
			sum = sum.Add(transcript.Usage{In: u.Prompt - u.Cached + u.ToolPrompt, Out: u.Candidates + u.Thoughts, CacheRead: u.Cached})
		default:
			t.Fatalf("wire %q", e.Wire)
		}
	}
	return sum, unwritten
}

// Transcripts of the real agents, each recorded against a scripted API that
// served known usage (testdata/recorded/README.md): the totals equal what
// the API served, figure by figure, and the model is the one it answered as.
func TestRecordedTranscripts(t *testing.T) {
	for _, c := range []struct {
		dir, glob string
		format    transcript.Format
		want      transcript.Usage
		model     string
		unwritten int
	}{
		// One run, then `codex exec resume`: five responses, one file.
		{"codex-0.169.0", "rollout-*.jsonl", transcript.Codex, transcript.Usage{In: 2310, Out: 165, CacheCreate: 265, CacheRead: 2575}, "gpt-5.5", 0},
		// One run, then --resume (its history replayed without tokens);
		// two router calls are written nowhere.
		{"gemini-0.61.0", "session-*.jsonl", transcript.Gemini, transcript.Usage{In: 6230, Out: 337, CacheRead: 4230}, "gemini-3.1-pro-preview", 2},
		// A subagent (invoke_agent): its own chat, in chats/<session id>/.
		{"gemini-0.61.0-subagent", "session-*.jsonl", transcript.Gemini, transcript.Usage{In: 31870, Out: 1973, CacheRead: 21870}, "gemini-3.1-pro-preview", 2},
		// One run, then --resume.
		{"copilot-1.0.102", "events.jsonl", transcript.Copilot, transcript.Usage{In: 575, Out: 175, CacheCreate: 1750, CacheRead: 12500}, "claude-sonnet-4.5", 0},
		// A subagent (the task tool): its calls are in the same file, under
		// its own accounting session.
		{"copilot-1.0.102-subagent", "events.jsonl", transcript.Copilot, transcript.Usage{In: 836, Out: 196, CacheCreate: 1960, CacheRead: 11600}, "claude-sonnet-4.5", 0},
		// One run, then /compact (two calls written as no message), then a
		// resumed turn: the cost-state lines count the compaction.
		{"claude-2.1.328", "*.jsonl", transcript.Claude, transcript.Usage{In: 1225, Out: 425, CacheCreate: 4250, CacheRead: 32500}, "claude-sonnet-4-5", 0},
	} {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "recorded", c.dir)
			want, unwritten := served(t, filepath.Join(dir, "served.jsonl"))
			if want != c.want || unwritten != c.unwritten {
				t.Fatalf("the API served %+v (%d unwritten calls); the table says %+v", want, unwritten, c.want)
			}
			paths, _ := filepath.Glob(filepath.Join(dir, c.glob))
			var path string
			for _, p := range paths {
				if filepath.Base(p) != "served.jsonl" {
					path = p
				}
			}
			// Gemini CLI's session id, as its hooks give it, is its chat's.
			session := gjson.Get(firstLine(t, path), "sessionId").Str
			var st store
			s, res := st.call(t, path, transcript.Options{Format: c.format, Session: session, Subagents: true})
			if got := s.Burn(); got != want || !res.Done {
				t.Errorf("totals %+v, the API served %+v", got, want)
			}
			if s.Model != c.model {
				t.Errorf("model %q, want %q", s.Model, c.model)
			}
			// Read again in torn pieces, a hook call after each: the same.
			data, _ := os.ReadFile(path)
			torn := filepath.Join(t.TempDir(), filepath.Base(path))
			if session != "" { // the subagents' chats, whole
				subs, _ := filepath.Glob(filepath.Join(dir, session, "*.jsonl"))
				for _, p := range subs {
					b, _ := os.ReadFile(p)
					os.MkdirAll(filepath.Join(filepath.Dir(torn), session), 0o700)
					os.WriteFile(filepath.Join(filepath.Dir(torn), session, filepath.Base(p)), b, 0o600)
				}
			}
			var st2 store
			for i := 0; i < len(data); i += 997 {
				os.WriteFile(torn, data[:min(len(data), i+997)], 0o600)
				s, _ = st2.call(t, torn, transcript.Options{Format: c.format, Session: session, Subagents: true})
			}
			if got := s.Burn(); got != want {
				t.Errorf("read in pieces: %+v, want %+v", got, want)
			}
		})
	}
}

func firstLine(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// The live suite's recordings (testdata/transcripts/<agent>-<version>/…,
// each with the usage.json the scripted API kept): every model call the
// API served is in the totals, once, except the side calls of the agents
// that write them nowhere (Gemini CLI's model router's; Droid counts its
// TUI's title request).
func TestLiveRecordedTranscripts(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "*", "usage.json"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "*", "*", "usage.json"))
	if len(dirs)+len(more) == 0 {
		t.Skip("no recordings")
	}
	for _, u := range append(dirs, more...) {
		dir := filepath.Dir(u)
		rel, _ := filepath.Rel(filepath.Join("..", "..", "testdata", "transcripts"), dir)
		t.Run(rel, func(t *testing.T) {
			b, err := os.ReadFile(u)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Exchanges []struct {
					Kind, Model string
					Usage       struct {
						Input        int64 `json:"input"`
						CacheRead    int64 `json:"cache_read"`
						CacheWrite5m int64 `json:"cache_write_5m"`
						CacheWrite1h int64 `json:"cache_write_1h"`
						Output       int64 `json:"output"`
					}
				}
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			agentDir := strings.SplitN(rel, string(filepath.Separator), 2)[0]
			droid := strings.HasPrefix(agentDir, "droid-")
			var want transcript.Usage
			model := ""
			for _, e := range doc.Exchanges {
				if (e.Kind == "side" && !droid) || e.Kind == "error" { // an API error serves nothing
					continue
				}
				x := e.Usage
				want = want.Add(transcript.Usage{In: x.Input, Out: x.Output, CacheCreate: x.CacheWrite5m + x.CacheWrite1h, CacheRead: x.CacheRead})
				if e.Kind != "sub" {
					model = e.Model
				}
			}
			var f transcript.Format
			var file string
			switch {
			case strings.HasPrefix(agentDir, "claude-"):
				f, file = transcript.Claude, "transcript.jsonl"
			case strings.HasPrefix(agentDir, "codex-"):
				f, file = transcript.Codex, "rollout.jsonl"
			case strings.HasPrefix(agentDir, "gemini-"):
				f, file = transcript.Gemini, "chats-session.jsonl"
			case strings.HasPrefix(agentDir, "copilot-"):
				f, file = transcript.Copilot, "events.jsonl"
			case strings.HasPrefix(agentDir, "qwen-"):
				f, file = transcript.Qwen, "chats-session.jsonl"
				// A session with a subagent keeps Qwen's layout:
				// chats/<session>.jsonl, subagents/<session>/agent-….jsonl.
				if chats, _ := filepath.Glob(filepath.Join(dir, "chats", "*.jsonl")); len(chats) == 1 {
					file, _ = filepath.Rel(dir, chats[0])
				}
			case strings.HasPrefix(agentDir, "pi-"):
				f, file = transcript.Pi, "session.jsonl"
			case strings.HasPrefix(agentDir, "kimi-"):
				// The model llm.request names (the usage records name the
				// config's alias).
				f, file = transcript.Kimi, "wire.jsonl"
			case droid:
				// The model as Droid names it (the custom model's display
				// name), chosen whether or not a call succeeded.
				f, file, model = transcript.Droid, "session.jsonl", "scripted"
			case strings.HasPrefix(agentDir, "cline-"):
				// The session's record, sessions/<id>/<id>.json.
				all, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.json"))
				var recs []string
				for _, r := range all {
					if !strings.HasSuffix(r, ".messages.json") {
						recs = append(recs, r)
					}
				}
				if len(recs) != 1 {
					t.Fatalf("%d session records", len(recs))
				}
				f, file = transcript.Cline, strings.TrimPrefix(recs[0], dir+string(filepath.Separator))
			default:
				t.Fatalf("no format for %s", agentDir)
			}
			var st store
			s, _ := st.call(t, filepath.Join(dir, file), transcript.Options{Format: f, Subagents: true})
			if s.Burn() != want {
				t.Errorf("totals %+v, the API served %+v (messages alone %+v)", s.Burn(), want, s.Totals)
			}
			if s.Model != model {
				t.Errorf("model %q, the API answered as %q", s.Model, model)
			}
		})
	}
}

// The live suite's Claude Code session with a subagent and /compact, laid
// out as Claude Code lays it out (<session>.jsonl, <session>/subagents/):
// the subagent's file is read after the main file's cost-states, and its
// messages, written before them, are covered by them rather than counted
// again; the messages alone fall short by the compaction's calls.
func TestLiveRecordedClaudeSubagentLayout(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "transcripts", "claude-2.1.328", "subagent-compact")
	b, err := os.ReadFile(filepath.Join(src, "transcript.jsonl"))
	if err != nil {
		t.Skip("no recording")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, b, 0o600)
	subs, _ := filepath.Glob(filepath.Join(src, "subagents", "agent-*.jsonl"))
	os.MkdirAll(filepath.Join(dir, "s", "subagents"), 0o700)
	for _, p := range subs {
		b, _ := os.ReadFile(p)
		os.WriteFile(filepath.Join(dir, "s", "subagents", filepath.Base(p)), b, 0o600)
	}
	var st store
	s, _ := st.call(t, path, transcript.Options{Subagents: true})
	want := transcript.Usage{In: 392, Out: 1015, CacheCreate: 3920, CacheRead: 17605} // its last cost-state, which equals what the API served
	if s.Burn() != want {
		t.Errorf("burn %+v, want %+v (messages %+v)", s.Burn(), want, s.Totals)
	}
	if s.Totals == want || len(subs) == 0 {
		t.Errorf("the messages alone (%+v) should miss the compaction's calls", s.Totals)
	}
}
