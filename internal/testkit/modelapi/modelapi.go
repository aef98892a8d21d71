// Package modelapi is a scripted stand-in for the model APIs the real coding
// agents talk to: Anthropic Messages (Claude Code, Copilot CLI), Gemini
// (Gemini CLI), OpenAI Responses (Codex) and OpenAI Chat Completions (Qwen
// Code). The live tests point an agent at it, offline, and it answers with a
// fixed script: tool calls in the agent's own vocabulary, then a final answer.
//
// The script is stateless over the conversation: the step a request gets is
// the number of tool results the request already carries. A retried tool
// call gets the same call, and side requests (titles, quota probes,
// next-speaker checks, anything offered no tools) never advance the script.
// A second answer in a session (another turn, a retry) says so in its text.
//
// Every response carries its own usage figures, all distinct, and the server
// records what it served, so a session's exact token totals are known without
// reading any transcript.
package modelapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Step is one model turn that calls a tool.
type Step struct {
	Text  string          `json:"text,omitempty"`  // narration before the call
	Tool  string          `json:"tool"`            // the agent's own tool name
	Input json.RawMessage `json:"input,omitempty"` // the tool's arguments, a JSON object
}

// Script is what the model does in one conversation: each step in turn, then
// the answer.
type Script struct {
	Steps  []Step `json:"steps"`
	Answer string `json:"answer"`
}

// Usage is the token usage of one response, in the Anthropic breakdown; the
// other wires are given the same figures under their own names (see the wire
// files).
type Usage struct {
	Input        int `json:"input"`          // uncached input (Anthropic input_tokens)
	CacheRead    int `json:"cache_read"`     // input read from the cache
	CacheWrite5m int `json:"cache_write_5m"` // input written to the 5-minute cache
	CacheWrite1h int `json:"cache_write_1h"` // input written to the 1-hour cache
	Output       int `json:"output"`         // output, reasoning included
	Reasoning    int `json:"reasoning"`      // of which reasoning (OpenAI) or thoughts (Gemini)
}

// CacheWrite is Anthropic's cache_creation_input_tokens: the sum of its
// breakdown, as the API reports it.
func (u Usage) CacheWrite() int { return u.CacheWrite5m + u.CacheWrite1h }

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Input: u.Input + v.Input, CacheRead: u.CacheRead + v.CacheRead,
		CacheWrite5m: u.CacheWrite5m + v.CacheWrite5m, CacheWrite1h: u.CacheWrite1h + v.CacheWrite1h,
		Output: u.Output + v.Output, Reasoning: u.Reasoning + v.Reasoning,
	}
}

// stepUsage is the usage served for a scripted step (answer = len(Steps)).
// Each field grows with the step at a different rate, so no two responses
// and no two fields agree, and a total that double-counts or drops a response
// is wrong in every field.
func stepUsage(step int) Usage {
	return Usage{
		Input:        11 + 3*step,
		CacheRead:    1000 + 101*step,
		CacheWrite5m: 200 + 17*step,
		CacheWrite1h: 30 + 5*step,
		Output:       40 + 7*step,
		Reasoning:    8 + 2*step,
	}
}

// sideUsage is the usage served for a request outside the script.
func sideUsage(n int) Usage {
	return Usage{Input: 5 + n, CacheRead: 0, Output: 2 + n}
}

// Exchange is one request the server answered.
type Exchange struct {
	Wire   string          `json:"wire"`
	Method string          `json:"method"`
	Path   string          `json:"path"` // with the query
	Model  string          `json:"model,omitempty"`
	Body   json.RawMessage `json:"-"`
	Kind   string          `json:"kind"` // "step", "answer", "side", "count", "error" (Fail) or "unknown"
	Step   int             `json:"step"` // the scripted step, for kind step or answer
	Tool   string          `json:"tool,omitempty"`
	Usage  *Usage          `json:"usage,omitempty"`
}

// Server answers one wire from one script. Subagent, when set, is the script
// for requests that IsSubagent picks (Claude Code's subagents run their own
// conversation through the same endpoint).
type Server struct {
	Wire       string // "anthropic", "gemini", "openai" (Responses) or "chat" (Chat Completions)
	Script     Script
	Subagent   *Script
	IsSubagent func(body []byte) bool
	Model      string // reported model; empty echoes the request's
	// Fail, when set, is the HTTP status every request is answered with,
	// an error body in the OpenAI/Anthropic shape: an API error, for the
	// agents' error paths.
	Fail int
	// FailTimes, when set, limits Fail to the first FailTimes requests;
	// the ones after get the script (an agent that retries, then goes on).
	FailTimes int
	// Latency, when set, is how long each request waits before it is
	// answered: a real API's delay, for an agent whose fire-and-forget
	// hooks are killed when its turn ends (Kimi Code's PostToolUse), which
	// an instant answer can end before they run.
	Latency time.Duration

	mu        sync.Mutex
	exchanges []Exchange
	sides     int
	ids       int
	failed    int // requests counted by failing
	ln        net.Listener
	srv       *http.Server
}

// Start listens on a loopback port and serves until Close.
func (s *Server) Start() (url string, err error) {
	s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(s.ln)
	return "http://" + s.ln.Addr().String(), nil
}

// Close stops the server.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// Exchanges returns what the server has answered so far, in order.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.exchanges...)
}

// Served is the usage the server served, in total and for the scripted
// conversation only (steps and answers, every request counted, retries
// included: each was a response the agent received).
func (s *Server) Served() (all, scripted Usage, responses int) {
	for _, e := range s.Exchanges() {
		if e.Usage == nil {
			continue
		}
		all = all.Add(*e.Usage)
		if e.Kind == "step" || e.Kind == "answer" {
			scripted = scripted.Add(*e.Usage)
			responses++
		}
	}
	return all, scripted, responses
}

// ServeHTTP dispatches on the wire.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
	ex := Exchange{Wire: s.Wire, Method: r.Method, Path: r.URL.RequestURI(), Body: body, Kind: "unknown"}
	if s.failing() {
		ex.Kind, ex.Model = "error", gjson.GetBytes(body, "model").String()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.Fail)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"scripted_error","code":%d,"message":"scripted failure (HTTP %d)"}}`+"\n", s.Fail, s.Fail)
		s.mu.Lock()
		s.exchanges = append(s.exchanges, ex)
		s.mu.Unlock()
		return
	}
	var ok bool
	switch s.Wire {
	case "anthropic":
		ok = s.anthropic(w, r, body, &ex)
	case "gemini":
		ok = s.gemini(w, r, body, &ex)
	case "openai":
		ok = s.openai(w, r, body, &ex)
	case "chat":
		ok = s.chat(w, r, body, &ex)
	}
	if !ok {
		http.Error(w, `{"error":{"message":"not scripted"}}`, http.StatusNotFound)
	}
	s.mu.Lock()
	s.exchanges = append(s.exchanges, ex)
	s.mu.Unlock()
}

// failing reports whether this request gets Fail: every one, or the first
// FailTimes.
func (s *Server) failing() bool {
	if s.Fail == 0 {
		return false
	}
	if s.FailTimes == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed++
	return s.failed <= s.FailTimes
}

// turn picks the script and the step for a request that offers tools and
// already carries results tools returns, and returns the usage to serve.
func (s *Server) turn(body []byte, results int, ex *Exchange) (Script, int, Usage) {
	sc := s.Script
	if s.Subagent != nil && s.IsSubagent != nil && s.IsSubagent(body) {
		sc = *s.Subagent
		ex.Kind = "sub"
	}
	step := results
	if step > len(sc.Steps) {
		step = len(sc.Steps)
	}
	u := stepUsage(step)
	if ex.Kind == "sub" {
		u = stepUsage(step + 50)
	}
	if step == len(sc.Steps) {
		// Another answer in the same session (Claude Code's turn that
		// reports a background subagent, a retry): new text and new figures,
		// as a model would give, so that no two responses agree.
		if n := s.answered(ex.Kind); n > 0 {
			sc.Answer = fmt.Sprintf("%s (answer %d)", sc.Answer, n+1)
			u = stepUsage(step + 20*n)
			if ex.Kind == "sub" {
				u = stepUsage(step + 50 + 20*n)
			}
		}
	}
	if s.Wire != "anthropic" { // only Anthropic reports cache writes
		u.CacheWrite5m, u.CacheWrite1h = 0, 0
	}
	ex.Step = step
	if step < len(sc.Steps) {
		ex.Tool = sc.Steps[step].Tool
		if ex.Kind != "sub" {
			ex.Kind = "step"
		}
	} else if ex.Kind != "sub" {
		ex.Kind = "answer"
	}
	ex.Usage = &u
	return sc, step, u
}

// answered counts the answers already served to the main conversation
// (kind "") or to subagents ("sub").
func (s *Server) answered(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.exchanges {
		switch {
		case kind == "sub" && e.Kind == "sub" && e.Tool == "":
			n++
		case kind != "sub" && e.Kind == "answer":
			n++
		}
	}
	return n
}

// side returns the usage for a request outside the script.
func (s *Server) side(ex *Exchange) Usage {
	s.mu.Lock()
	s.sides++
	u := sideUsage(s.sides)
	s.mu.Unlock()
	ex.Kind = "side"
	ex.Usage = &u
	return u
}

func (s *Server) id(prefix string) string {
	s.mu.Lock()
	s.ids++
	n := s.ids
	s.mu.Unlock()
	return fmt.Sprintf("%s%024d", prefix, n)
}

// sse writes server-sent events and flushes each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return sse{w, f}
}

func (e sse) send(event string, data any) {
	b, _ := json.Marshal(data)
	var buf bytes.Buffer
	if event != "" {
		fmt.Fprintf(&buf, "event: %s\n", event)
	}
	fmt.Fprintf(&buf, "data: %s\n\n", b)
	e.w.Write(buf.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// input returns a step's arguments as an object.
func (st Step) input() map[string]any {
	m := map[string]any{}
	if len(st.Input) > 0 {
		json.Unmarshal(st.Input, &m)
	}
	return m
}

func (st Step) inputJSON() string {
	if len(st.Input) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, st.Input) != nil {
		return "{}"
	}
	return buf.String()
}

// hasSuffixPath reports whether the request's path ends with suffix.
func hasSuffixPath(r *http.Request, suffix string) bool {
	return strings.HasSuffix(r.URL.Path, suffix)
}
