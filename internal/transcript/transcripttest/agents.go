package transcripttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/transcript"
)

// An Agent writes a realistic Codex rollout, Gemini CLI chat or Copilot CLI
// events file (the shapes of the recordings in ../testdata/recorded), and
// knows the exact totals it wrote. Besides the usage records it writes
// what makes counting them hard: Codex's running token_count events (the
// same usage again, cumulative), Gemini's second write of every
// tool-calling message and its --resume history replays without tokens,
// Copilot's resumes and its shutdown metrics, replayed records, huge tool
// outputs, malformed lines.
type Agent struct {
	Format  transcript.Format
	Session string
	// Lines are what was generated since the last Flush (the main file's),
	// Subs the subagents' files' (Gemini CLI's, by name); Order all of
	// them as written, as Generator's.
	Lines []string
	Subs  map[string][]string
	Order []Written
	// Truth is the exact total; Model the last model named.
	Truth transcript.Usage
	Model string
	// BigLine is the size of the huge tool outputs.
	BigLine int

	rng     *rand.Rand
	now     time.Time
	seq     int
	started bool
	total   transcript.Usage // Codex's running token_count
	history []string         // Gemini's messages, for a resume's replay
	counted []string         // records written, for replays
}

// NewAgent returns a generator of format f; the same seed writes the same
// session.
func NewAgent(f transcript.Format, seed uint64) *Agent {
	a := &Agent{Format: f, rng: rand.New(rand.NewPCG(seed, seed^0x51ed27)), BigLine: 64 << 10,
		now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	switch f {
	case transcript.Codex:
		a.Session = "01a22ce7-8a3e-7ff1-8d87-a521c73f1cd1"
	case transcript.Gemini:
		a.Session = "6509cb93-c1f4-4aa4-9aa2-4342a3916d46"
	default:
		a.Session = "27c05e3b-475d-4242-a6d0-9f5b5ea50230"
	}
	return a
}

// File is the transcript's name under a directory, as the agent names it.
func (a *Agent) File() string {
	switch a.Format {
	case transcript.Codex:
		return "rollout-2026-11-30T09-00-00-" + a.Session + ".jsonl"
	case transcript.Gemini:
		return "session-2026-11-30T09-00-" + a.Session[:8] + ".jsonl"
	}
	return "events.jsonl"
}

func (a *Agent) emit(line string) {
	a.Lines = append(a.Lines, line)
	a.Order = append(a.Order, Written{"", line})
}

func (a *Agent) emitSub(file, line string) {
	if a.Subs == nil {
		a.Subs = map[string][]string{}
	}
	a.Subs[file] = append(a.Subs[file], line)
	a.Order = append(a.Order, Written{file, line})
}

// geminiSubagent runs a subagent (invoke_agent): Gemini CLI records it in a
// chat of its own, chats/<session id>/<its id>.jsonl, header kind
// "subagent", its model messages with their tokens.
func (a *Agent) geminiSubagent() {
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", a.rng.Uint32(), a.rng.Uint64()&0xffffffffffff)
	file := id + ".jsonl"
	a.emitSub(file, js(obj{"sessionId": id, "projectHash": "384a4e20", "startTime": a.tick(), "lastUpdated": a.tick(), "kind": "subagent"}))
	for range 1 + a.rng.IntN(3) {
		in, cached, _, out, thoughts := a.usage()
		a.emitSub(file, js(obj{"id": a.id("sub"), "timestamp": a.tick(), "type": "gemini", "content": "Found it.",
			"tokens": obj{"input": in, "output": out, "cached": cached, "thoughts": thoughts, "tool": 0, "total": in + out + thoughts}, "model": "gemini-2.5-flash-lite"}))
		a.Truth = a.Truth.Add(transcript.Usage{In: in - cached, Out: out + thoughts, CacheRead: cached})
		a.emitSub(file, js(obj{"$set": obj{"lastUpdated": a.tick()}}))
	}
}

func (a *Agent) put(v obj) { a.emit(js(v)) }

func (a *Agent) tick() string {
	a.now = a.now.Add(time.Duration(20+a.rng.IntN(3000)) * time.Millisecond)
	return a.now.Format("2006-01-02T15:04:05.000Z")
}

func (a *Agent) id(prefix string) string {
	a.seq++
	return fmt.Sprintf("%s_%05d%06x", prefix, a.seq, a.rng.Uint32()&0xffffff)
}

// usage draws one response's figures in the agent's own terms, and returns
// them with what they mean (the four figures of docs/pulse.md).
func (a *Agent) usage() (in, cached, written, out, extra int64) {
	in = int64(500 + a.rng.IntN(90000))
	cached = int64(a.rng.IntN(int(in)))
	if a.rng.IntN(3) == 0 {
		written = int64(a.rng.IntN(int(in - cached + 1)))
	}
	out = int64(1 + a.rng.IntN(3000))
	extra = int64(a.rng.IntN(int(out) + 1)) // reasoning (within out) or thoughts (beside it)
	return
}

func (a *Agent) tool() string {
	if a.rng.IntN(5) == 0 {
		return strings.Repeat("x", a.BigLine)
	}
	return "ok " + strings.Repeat("y", a.rng.IntN(200))
}

// Turns writes n more turns.
func (a *Agent) Turns(n int) *Agent {
	if !a.started {
		a.start()
		a.started = true
	}
	for range n {
		switch a.Format {
		case transcript.Codex:
			a.codexTurn()
		case transcript.Gemini:
			a.geminiTurn()
		case transcript.Copilot:
			a.copilotTurn()
		}
		if a.rng.IntN(15) == 0 {
			a.resume()
		}
		if a.rng.IntN(10) == 0 && len(a.counted) > 0 {
			// A record written again (a replay, a retried write): same
			// identity, same figures, counted once.
			a.emit(a.counted[a.rng.IntN(len(a.counted))])
		}
		if a.rng.IntN(12) == 0 {
			a.emit(map[transcript.Format]string{
				transcript.Codex:   `{"type":"token_usage_record","payload":{"response_id":"torn","usage":{"input_tokens":5`,
				transcript.Gemini:  `{"id":"broken","type":"gemini","tokens":{"input":`,
				transcript.Copilot: `{"type":"session.usage_record","data":{"usage":{"inputTokens":9`,
			}[a.Format])
		}
	}
	return a
}

func (a *Agent) start() {
	switch a.Format {
	case transcript.Codex:
		a.put(obj{"timestamp": a.tick(), "type": "session_meta", "payload": obj{"id": a.Session, "session_id": a.Session, "cwd": "/home/u/app", "originator": "codex_exec", "cli_version": "0.169.0", "base_instructions": obj{"text": strings.Repeat("You are Codex. ", 1500)}}})
	case transcript.Gemini:
		a.put(obj{"sessionId": a.Session, "projectHash": "384a4e20", "startTime": a.tick(), "lastUpdated": a.tick(), "kind": "main"})
		a.put(obj{"$set": obj{"messages": []obj{{"id": a.id("ctx"), "type": "user", "content": []obj{{"text": "<session_context>…"}}}}}})
	case transcript.Copilot:
		a.put(obj{"type": "session.start", "data": obj{"sessionId": a.Session, "copilotVersion": "1.0.102", "selectedModel": "claude-sonnet-4.5"}, "id": a.id("ev"), "timestamp": a.tick(), "parentId": nil})
	}
}

func (a *Agent) resume() {
	switch a.Format {
	case transcript.Codex: // codex exec resume: the same file, the totals count on
		a.put(obj{"timestamp": a.tick(), "type": "event_msg", "payload": obj{"type": "thread_settings_applied"}})
	case transcript.Gemini: // --resume: a header, the history replayed without tokens
		a.put(obj{"sessionId": a.Session, "projectHash": "384a4e20", "startTime": a.tick(), "lastUpdated": a.tick(), "kind": "main"})
		var msgs []json.RawMessage
		for _, h := range a.history {
			var m obj
			json.Unmarshal([]byte(h), &m)
			delete(m, "tokens")
			msgs = append(msgs, json.RawMessage(js(m)))
		}
		a.put(obj{"$set": obj{"sessionId": a.Session}})
		a.put(obj{"$set": obj{"messages": msgs}})
		if len(a.history) > 2 && a.rng.IntN(2) == 0 { // a rewind: what was spent stays spent
			a.put(obj{"$rewindTo": js(a.history[len(a.history)/2])[:20]})
		}
	case transcript.Copilot:
		a.put(obj{"type": "session.shutdown", "data": obj{"modelMetrics": obj{a.Model: obj{"usage": obj{"inputTokens": a.Truth.In, "outputTokens": a.Truth.Out}}}}, "id": a.id("ev"), "timestamp": a.tick()})
		a.put(obj{"type": "session.resume", "data": obj{"eventCount": a.seq}, "id": a.id("ev"), "timestamp": a.tick()})
	}
}

func (a *Agent) codexTurn() {
	a.Model = []string{"gpt-5.5", "gpt-5.5", "gpt-5.4-mini"}[a.rng.IntN(3)]
	turn := a.id("turn")
	a.put(obj{"timestamp": a.tick(), "type": "event_msg", "payload": obj{"type": "task_started", "turn_id": turn}})
	a.put(obj{"timestamp": a.tick(), "type": "turn_context", "payload": obj{"turn_id": turn, "cwd": "/home/u/app", "model": a.Model, "approval_policy": "never"}})
	a.put(obj{"timestamp": a.tick(), "type": "response_item", "payload": obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": "fix the test"}}}})
	for range 1 + a.rng.IntN(5) {
		in, cached, written, out, reasoning := a.usage()
		reasoning = min(reasoning, out)
		u := obj{"input_tokens": in, "cached_input_tokens": cached, "cache_write_input_tokens": written, "output_tokens": out, "reasoning_output_tokens": reasoning, "total_tokens": in + out}
		call := a.id("call")
		a.put(obj{"timestamp": a.tick(), "type": "response_item", "payload": obj{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"go test ./..."}`, "call_id": call}})
		rec := js(obj{"timestamp": a.tick(), "type": "token_usage_record", "payload": obj{"thread_id": a.Session, "turn_id": turn, "session_id": a.Session, "response_id": a.id("resp"), "usage": u, "turn_token_usage": u, "thread_token_usage": u}})
		a.emit(rec)
		a.counted = append(a.counted, rec)
		got := transcript.Usage{In: in - cached - written, Out: out, CacheCreate: written, CacheRead: cached}
		a.Truth = a.Truth.Add(got)
		a.total = a.total.Add(got)
		a.put(obj{"timestamp": a.tick(), "type": "response_item", "payload": obj{"type": "function_call_output", "call_id": call, "output": a.tool()}})
		// The running total: the same usage again, never counted.
		a.put(obj{"timestamp": a.tick(), "type": "event_msg", "payload": obj{"type": "token_count", "info": obj{
			"total_token_usage": obj{"input_tokens": a.total.In + a.total.CacheRead + a.total.CacheCreate, "cached_input_tokens": a.total.CacheRead, "output_tokens": a.total.Out},
			"last_token_usage":  u, "model_context_window": 258400}}})
	}
	a.put(obj{"timestamp": a.tick(), "type": "event_msg", "payload": obj{"type": "task_complete", "turn_id": turn, "last_agent_message": "Done."}})
}

func (a *Agent) geminiTurn() {
	a.Model = []string{"gemini-3.1-pro-preview", "gemini-2.5-flash"}[a.rng.IntN(2)]
	user := js(obj{"id": a.id("user"), "timestamp": a.tick(), "type": "user", "content": []obj{{"text": "fix the test"}}})
	a.emit(user)
	a.history = append(a.history, user)
	a.put(obj{"$set": obj{"lastUpdated": a.tick()}})
	steps := 1 + a.rng.IntN(4)
	for i := range steps {
		in, cached, _, out, thoughts := a.usage()
		tool := int64(0)
		if a.rng.IntN(6) == 0 {
			tool = int64(a.rng.IntN(300))
		}
		msg := obj{"id": a.id("gem"), "timestamp": a.tick(), "type": "gemini", "content": "Running the tests.", "thoughts": []any{},
			"tokens": obj{"input": in, "output": out, "cached": cached, "thoughts": thoughts, "tool": tool, "total": in + out + thoughts + tool}, "model": a.Model}
		rec := js(msg)
		a.emit(rec)
		a.counted = append(a.counted, rec)
		a.Truth = a.Truth.Add(transcript.Usage{In: in - cached + tool, Out: out + thoughts, CacheRead: cached})
		a.put(obj{"$set": obj{"lastUpdated": a.tick()}})
		if i < steps-1 && a.rng.IntN(6) == 0 {
			a.geminiSubagent()
		}
		if i < steps-1 { // a tool-calling message is written again, with its calls
			msg["toolCalls"] = []obj{{"id": a.id("run_shell_command"), "name": "run_shell_command", "args": obj{"command": "go test ./..."}, "result": []obj{{"functionResponse": obj{"response": obj{"output": a.tool()}}}}}}
			again := js(msg)
			a.emit(again)
			a.history = append(a.history, again)
			res := js(obj{"id": a.id("user"), "timestamp": a.tick(), "type": "user", "content": []obj{{"functionResponse": obj{"name": "run_shell_command", "response": obj{"output": "ok"}}}}})
			a.emit(res)
			a.history = append(a.history, res)
		} else {
			a.history = append(a.history, rec)
		}
	}
}

func (a *Agent) copilotTurn() {
	a.Model = []string{"claude-sonnet-4.5", "gpt-5.5"}[a.rng.IntN(2)]
	a.put(obj{"type": "user.message", "data": obj{"content": "fix the test"}, "id": a.id("ev"), "timestamp": a.tick()})
	for range 1 + a.rng.IntN(4) {
		in, cached, written, out, reasoning := a.usage()
		reasoning = min(reasoning, out)
		a.put(obj{"type": "assistant.turn_start", "data": obj{"turnId": "0"}, "id": a.id("ev"), "timestamp": a.tick()})
		api := a.id("msg")
		u := obj{"model": a.Model, "inputTokens": in, "outputTokens": out, "cacheReadTokens": cached, "cacheWriteTokens": written, "reasoningTokens": reasoning,
			"apiCallId": api, "accounting": obj{"sourceSessionId": a.Session, "sequence": a.seq, "usageId": api}}
		if a.rng.IntN(5) == 0 {
			u["initiator"] = "sub-agent"
		}
		rec := js(obj{"type": "session.usage_record", "data": obj{"usage": u}, "id": a.id("ev"), "timestamp": a.tick()})
		a.emit(rec)
		a.counted = append(a.counted, rec)
		a.Truth = a.Truth.Add(transcript.Usage{In: in - cached - written, Out: out, CacheCreate: written, CacheRead: cached})
		a.put(obj{"type": "assistant.message", "data": obj{"messageId": a.id("m"), "model": a.Model, "content": "Running the tests.", "apiCallId": api, "outputTokens": out}, "id": a.id("ev"), "timestamp": a.tick()})
		a.put(obj{"type": "tool.execution_complete", "data": obj{"toolCallId": a.id("toolu"), "success": true, "result": obj{"content": a.tool()}}, "id": a.id("ev"), "timestamp": a.tick()})
		a.put(obj{"type": "assistant.turn_end", "data": obj{}, "id": a.id("ev"), "timestamp": a.tick()})
	}
}

// Write writes the transcript (and its subagents' files) under dir and
// returns its path.
func (a *Agent) Write(dir string) (string, error) {
	return a.write(dir, os.O_TRUNC)
}

func (a *Agent) write(dir string, mode int) (string, error) {
	path := filepath.Join(dir, a.File())
	if err := appendLines(path, a.Lines, mode); err != nil {
		return "", err
	}
	for name, lines := range a.Subs {
		p := filepath.Join(dir, a.Session, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return "", err
		}
		if err := appendLines(p, lines, mode); err != nil {
			return "", err
		}
	}
	return path, nil
}

// Flush appends what was generated since the last Flush and forgets it
// (Truth stays).
func (a *Agent) Flush(dir string) (string, error) {
	path, err := a.write(dir, os.O_APPEND)
	a.Lines, a.Subs, a.Order = nil, nil, nil
	if len(a.counted) > 256 {
		a.counted = a.counted[len(a.counted)-256:]
	}
	if len(a.history) > 64 {
		a.history = a.history[len(a.history)-64:]
	}
	return path, err
}

// AgentReference computes a transcript's exact totals the obvious way,
// sharing no code with the scanner: decode every line with encoding/json,
// keep each record's largest figures by its identity, map them to the four
// figures, sum.
// Gemini CLI's subagents' chats, <dir>/<session>/*.jsonl, count too.
func AgentReference(path string, f transcript.Format, session string) transcript.Usage {
	best := map[string]transcript.Usage{}
	agentRecords(path, f, best)
	if f == transcript.Gemini && session != "" {
		subs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), session, "*.jsonl"))
		for _, p := range subs {
			agentRecords(p, f, best)
		}
	}
	var total transcript.Usage
	for _, u := range best {
		total = total.Add(u)
	}
	return total
}

func agentRecords(path string, f transcript.Format, best map[string]transcript.Usage) {
	file, err := os.Open(path)
	if err != nil {
		return
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var key string
		var u transcript.Usage
		switch f {
		case transcript.Codex:
			var l struct {
				Type    string
				Payload struct {
					ThreadID   string `json:"thread_id"`
					ResponseID string `json:"response_id"`
					Usage      *struct {
						In      int64 `json:"input_tokens"`
						Cached  int64 `json:"cached_input_tokens"`
						Written int64 `json:"cache_write_input_tokens"`
						Out     int64 `json:"output_tokens"`
					}
				}
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "token_usage_record" || l.Payload.Usage == nil {
				continue
			}
			p := l.Payload.Usage
			key = l.Payload.ThreadID + "/" + l.Payload.ResponseID
			u = transcript.Usage{In: p.In - p.Cached - p.Written, Out: p.Out, CacheCreate: p.Written, CacheRead: p.Cached}
		case transcript.Gemini:
			var l struct {
				ID     string
				Type   string
				Tokens *struct{ Input, Output, Cached, Thoughts, Tool int64 }
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "gemini" || l.Tokens == nil {
				continue
			}
			t := l.Tokens
			key = l.ID
			u = transcript.Usage{In: t.Input - t.Cached + t.Tool, Out: t.Output + t.Thoughts, CacheRead: t.Cached}
		case transcript.Copilot:
			var l struct {
				Type string
				Data struct {
					Usage *struct {
						InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64
						Accounting                                                   struct{ SourceSessionID, UsageID string }
					}
				}
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "session.usage_record" || l.Data.Usage == nil {
				continue
			}
			p := l.Data.Usage
			key = p.Accounting.SourceSessionID + "/" + p.Accounting.UsageID
			u = transcript.Usage{In: p.InputTokens - p.CacheReadTokens - p.CacheWriteTokens, Out: p.OutputTokens, CacheCreate: p.CacheWriteTokens, CacheRead: p.CacheReadTokens}
		}
		best[key] = best[key].Max(u)
	}
}
