// Package transcripttest writes realistic Claude Code transcripts that know
// their own exact token totals, and computes those totals independently of
// package transcript, to test and benchmark it.
package transcripttest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/transcript"
)

// Usage is a token count.
type Usage = transcript.Usage

// A Generator writes a realistic Claude Code session (most bytes are tool
// results; about a third are assistant lines, the share toki's design notes
// measure, korjwl1/toki docs/DESIGN.md): prompts, assistant
// messages written one line per content block with output_tokens growing,
// parallel tool calls sharing a message id, tool results (some huge, some
// carrying a subagent's "usage" in toolUseResult), <synthetic> messages,
// /btw sidechain replays of parent messages, lines without message ids,
// subagents writing their own files while the main file carries their
// messages in progress lines, compaction replays of old lines, malformed
// lines. It knows the exact totals it wrote.
type Generator struct {
	rng *rand.Rand
	now time.Time
	// Session is the session id; the transcript is <Session>.jsonl.
	Session string
	seq     int

	// Main holds the lines of the main transcript, Subs those of each
	// subagent's file.
	Main []string
	Subs map[string][]string
	// Order interleaves the files' lines as they were written.
	Order []Written

	// Truth counts every API call: every distinct message, subagents
	// included, and the calls written as no message (which cost-state lines
	// count); TruthMain counts the main conversation's messages alone.
	Truth, TruthMain Usage
	// BigLine is the size of the huge tool results and tool inputs.
	BigLine int

	old []string
}

// Written is one line of one file: File is "" for the main transcript, else
// the subagent file's name.
type Written struct {
	File string
	Line string
}

// New returns a generator; the same seed writes the same session.
func New(seed uint64) *Generator {
	return &Generator{
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now:     time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
		Session: "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11",
		Subs:    map[string][]string{},
		BigLine: 64 << 10,
	}
}

func (g *Generator) emit(file, line string) {
	if file == "" {
		g.Main = append(g.Main, line)
	} else {
		g.Subs[file] = append(g.Subs[file], line)
	}
	g.Order = append(g.Order, Written{file, line})
}

func (g *Generator) tick() string {
	g.now = g.now.Add(time.Duration(50+g.rng.IntN(2000)) * time.Millisecond)
	return g.now.Format("2006-01-02T15:04:05.000Z")
}

func (g *Generator) id(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s_%04d%08x", prefix, g.seq, g.rng.Uint32())
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type obj = map[string]any

func (g *Generator) envelope(typ string, sidechain bool, extra obj) obj {
	e := obj{"parentUuid": nil, "isSidechain": sidechain, "userType": "external", "cwd": "/home/u/app",
		"sessionId": g.Session, "version": "2.1.63", "gitBranch": "main", "type": typ,
		"uuid": g.id("uuid"), "timestamp": g.tick()}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

func (g *Generator) prompt() {
	g.emit("", js(g.envelope("user", false, obj{"message": obj{"role": "user", "content": "Please fix the failing test"}})))
}

// toolResult writes a user line with a tool result; big ones are huge, and
// some carry a subagent's usage in toolUseResult (which must not count).
func (g *Generator) toolResult(big bool) {
	text := strings.Repeat("ok ", 20)
	if big {
		text = strings.Repeat("x", g.BigLine)
	}
	extra := obj{"message": obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": g.id("toolu"), "content": text}}}}
	if !big && g.rng.IntN(4) == 0 { // a Task tool's result: the subagent's summary
		extra["toolUseResult"] = obj{"totalTokens": 999, "usage": obj{"input_tokens": 999, "output_tokens": 999}}
	}
	g.emit("", js(g.envelope("user", false, extra)))
}

// message writes one assistant message as several lines, returns its lines.
func (g *Generator) message(file, model string, sidechain, noID bool, parallelTools int) []string {
	final := Usage{In: int64(1 + g.rng.IntN(5)), Out: int64(10 + g.rng.IntN(2000)),
		CacheCreate: int64(g.rng.IntN(9000)), CacheRead: int64(g.rng.IntN(90000))}
	blocks := []obj{{"type": "thinking", "thinking": "Let me think."}, {"type": "text", "text": "I will run the tests."}}
	for range parallelTools {
		input := obj{"command": "go test ./..."}
		if g.rng.IntN(12) == 0 {
			input = obj{"file_path": "/home/u/app/big.txt", "content": strings.Repeat("y", g.BigLine)}
		}
		blocks = append(blocks, obj{"type": "tool_use", "id": g.id("toolu"), "name": "Bash", "input": input})
	}
	msgID, reqID := g.id("msg"), g.id("req")
	var lines []string
	var sum Usage // without a message id, each line counts once
	for i, b := range blocks {
		u := final
		if i < len(blocks)-1 { // output grows; only the last line has the final value
			u.Out = final.Out * int64(i+1) / int64(len(blocks)+1)
		}
		sum = sum.Add(u)
		msg := obj{"model": model, "type": "message", "role": "assistant", "content": []obj{b},
			"stop_reason": nil, "stop_sequence": nil,
			"usage": obj{"input_tokens": u.In, "output_tokens": u.Out, "cache_creation_input_tokens": u.CacheCreate,
				"cache_read_input_tokens": u.CacheRead, "service_tier": "standard",
				"cache_creation": obj{"ephemeral_5m_input_tokens": u.CacheCreate, "ephemeral_1h_input_tokens": 0}}}
		extra := obj{"message": msg, "requestId": reqID}
		if !noID {
			msg["id"] = msgID
		}
		lines = append(lines, js(g.envelope("assistant", sidechain, extra)))
	}
	if noID {
		final = sum
	}
	g.Truth = g.Truth.Add(final)
	if file == "" {
		g.TruthMain = g.TruthMain.Add(final)
	}
	for _, l := range lines {
		g.emit(file, l)
	}
	return lines
}

// subagent runs a subagent: its file gets its messages, and the main file
// gets a progress line nesting each one (the same message, counted once).
func (g *Generator) subagent() {
	file := fmt.Sprintf("agent-a%x.jsonl", g.rng.Uint32())
	for range 1 + g.rng.IntN(3) {
		lines := g.message(file, "claude-haiku-4-5-20251001", true, false, 1)
		last := lines[len(lines)-1]
		var nested obj
		json.Unmarshal([]byte(last), &nested)
		g.emit("", js(g.envelope("progress", false, obj{"data": obj{"type": "agent_progress", "message": nested}})))
	}
}

// Turns writes n more turns of everything.
func (g *Generator) Turns(turns int) *Generator {
	for t := range turns {
		g.prompt()
		for range 1 + g.rng.IntN(4) {
			tools := g.rng.IntN(3)
			lines := g.message("", "claude-opus-4-6", false, false, tools)
			if len(g.old) < 4096 {
				g.old = append(g.old, lines...)
			} else {
				g.old[g.rng.IntN(len(g.old))] = lines[0]
			}
			for range tools {
				g.toolResult(g.rng.IntN(4) == 0)
			}
		}
		switch g.rng.IntN(12) {
		case 0: // an API error placeholder
			g.message("", "<synthetic>", false, false, 0)
		case 1: // a third-party endpoint without message ids
			g.message("", "claude-opus-4-6", false, true, 0)
		case 2:
			g.subagent()
		case 4: // a /btw side question replays a parent message under a new request id
			if len(g.old) > 0 {
				var e obj
				json.Unmarshal([]byte(g.old[g.rng.IntN(len(g.old))]), &e)
				e["isSidechain"], e["requestId"], e["uuid"] = true, g.id("req"), g.id("uuid")
				g.emit("", js(e))
			}
		case 5: // a second /compact re-appends old lines, uuids and timestamps and all
			g.emit("", js(g.envelope("system", false, obj{"subtype": "compact_boundary"})))
			for range 1 + g.rng.IntN(6) {
				if len(g.old) > 0 {
					g.emit("", g.old[g.rng.IntN(len(g.old))])
				}
			}
		case 6: // a line that mentions usage but is broken
			g.emit("", `{"type":"assistant","message":{"usage":{"input_tokens":5`)
		case 3: // /compact's calls, written as no message, then the process leaves
			g.costState()
		}
		if t%7 == 6 {
			g.emit("", js(g.envelope("file-history-snapshot", false, obj{"snapshot": obj{"files": []string{"a.go"}}})))
		}
	}
	return g
}

// costState makes two API calls that Claude Code writes as no message
// (/compact's), then writes a cost-state line as a process leaving the
// session does: the cumulative usage of every call so far, subagents
// included, split over two models.
func (g *Generator) costState() {
	for range 2 {
		g.Truth = g.Truth.Add(Usage{In: int64(1 + g.rng.IntN(500)), Out: int64(1 + g.rng.IntN(900)),
			CacheCreate: int64(g.rng.IntN(3000)), CacheRead: int64(g.rng.IntN(20000))})
	}
	haiku := Usage{In: min(3, g.Truth.In), Out: min(2, g.Truth.Out)}
	opus := g.Truth.Sub(haiku)
	model := func(u Usage) obj {
		return obj{"inputTokens": u.In, "outputTokens": u.Out, "cacheReadInputTokens": u.CacheRead, "cacheCreationInputTokens": u.CacheCreate,
			"thinkingTokens": 0, "webSearchRequests": 0, "costUSD": 0.5}
	}
	g.emit("", js(obj{"type": "cost-state", "sessionId": g.Session, "totalCostUSD": 1.0, "startTime": 1796040000000,
		"modelUsage": obj{"claude-opus-4-6": model(opus), "claude-haiku-4-5-20251001": model(haiku)}}))
}

// Write writes the session under dir, as Claude Code lays it out, and
// returns the transcript's path.
func (g *Generator) Write(dir string) (string, error) {
	return g.write(dir, os.O_TRUNC)
}

// Flush appends what was generated since the last Flush to the files under
// dir and forgets it (Truth stays): a session of any size can be written
// in batches.
func (g *Generator) Flush(dir string) (string, error) {
	path, err := g.write(dir, os.O_APPEND)
	g.Main, g.Subs, g.Order = nil, map[string][]string{}, nil
	return path, err
}

func (g *Generator) write(dir string, mode int) (string, error) {
	path := filepath.Join(dir, g.Session+".jsonl")
	if err := appendLines(path, g.Main, mode); err != nil {
		return "", err
	}
	for name, lines := range g.Subs {
		p := filepath.Join(dir, g.Session, "subagents", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return "", err
		}
		if err := appendLines(p, lines, mode); err != nil {
			return "", err
		}
		os.WriteFile(strings.TrimSuffix(p, ".jsonl")+".meta.json", []byte(`{"agentType":"Explore"}`), 0o600)
	}
	return path, nil
}

func appendLines(path string, lines []string, mode int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|mode, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	return errors.Join(w.Flush(), f.Close())
}
