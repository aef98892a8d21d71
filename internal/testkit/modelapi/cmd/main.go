// Command modelapi serves a scripted model API on loopback, for exploring an
// agent by hand:
//
//	go run ./internal/testkit/modelapi/cmd -wire anthropic -script s.json -log /tmp/api
//
// It prints the base URL, then serves until interrupted. With -log, each
// request's body is written to DIR/NNN-KIND.json and every exchange (with the
// usage served) appended to DIR/exchanges.jsonl.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/hookwire/hookwire/internal/testkit/modelapi"
)

func main() {
	wire := flag.String("wire", "anthropic", "anthropic, gemini, openai (Responses) or chat (Chat Completions)")
	script := flag.String("script", "", "the script, a JSON file {\"steps\":[{\"text\",\"tool\",\"input\"}],\"answer\"}")
	sub := flag.String("subagent", "", "the script for subagents (Claude Code's, marked cc_is_subagent=true; on the chat wire Qwen Code's)")
	logDir := flag.String("log", "", "directory for the requests and exchanges")
	fail := flag.Int("fail", 0, "answer every request with this HTTP status and an error body (an API error)")
	failTimes := flag.Int("fail-times", 0, "with -fail, fail only the first N requests, then serve the script")
	latency := flag.Duration("latency", 0, "wait this long before answering each request (a real API's delay)")
	flag.Parse()
	s := &modelapi.Server{Wire: *wire, Fail: *fail, FailTimes: *failTimes, Latency: *latency}
	load := func(file string, into *modelapi.Script) {
		b, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(b, into)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "modelapi:", err)
			os.Exit(1)
		}
	}
	if *script != "" {
		load(*script, &s.Script)
	}
	if *sub != "" {
		s.Subagent = new(modelapi.Script)
		load(*sub, s.Subagent)
		s.IsSubagent = modelapi.ClaudeSubagent
		if *wire == "chat" {
			s.IsSubagent = modelapi.QwenSubagent
		}
	}
	url, err := s.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelapi:", err)
		os.Exit(1)
	}
	fmt.Println(url)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	logged := 0
	tick := time.NewTicker(100 * time.Millisecond)
	for {
		select {
		case <-stop:
			s.Close()
			return
		case <-tick.C:
		}
		if *logDir == "" {
			continue
		}
		ex := s.Exchanges()
		for ; logged < len(ex); logged++ {
			e := ex[logged]
			os.WriteFile(filepath.Join(*logDir, fmt.Sprintf("%03d-%s.json", logged+1, e.Kind)), e.Body, 0o644)
			line, _ := json.Marshal(e)
			f, err := os.OpenFile(filepath.Join(*logDir, "exchanges.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err == nil {
				f.Write(append(line, '\n'))
				f.Close()
			}
		}
	}
}
