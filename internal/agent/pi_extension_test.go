package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The extension itself, run by node under a driver that plays Pi: it fires
// Pi's events as Pi does, with a ctx whose sessionManager names the
// session, a tool's result in error, an assistant message before the run
// settles, then session_shutdown and exit at once (as `pi -p` does); the
// command appends each payload it is handed to a file, slowly enough that
// a process started at once would overtake the one before. Without node
// the test skips.
func TestPiExtension(t *testing.T) { testPiExtension(t, "0.05") }

// The same with a command so slow that the processes still queued when Pi
// exits (five of them, each waiting for the one before) take longer in all
// than the queue's bound for one: the last of them once ran at the same
// moment as the one before it, out of order (seen under load, and from a
// hookwire serving five surfaces under the race detector).
func TestPiExtensionSlowChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about 7 s")
	}
	testPiExtension(t, "1.1")
}

func testPiExtension(t *testing.T, sleep string) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	dir := t.TempDir()
	got := filepath.Join(dir, "got.jsonl")
	rec := filepath.Join(dir, "rec.sh")
	if err := os.WriteFile(rec, []byte("#!/bin/sh\np=$(cat)\nsleep "+sleep+"\nprintf '%s\\n' \"$p\" >> "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	events := map[string]time.Duration{}
	for _, n := range pi.Events {
		events[n.Name] = 10 * time.Second
	}
	ext := filepath.Join(dir, "hookwire-rec.mjs")
	if err := os.WriteFile(ext, pi.Settings.Plugin.Source([]string{rec, "--agent", "pi"}, events), 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(dir, "driver.mjs")
	if err := os.WriteFile(driver, []byte(piDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, driver, ext)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("driver: %v\n%s", err, out)
	}
	want := []string{"session_start", "before_agent_start", "tool_call", "tool_execution_end", "agent_settled", "session_shutdown"}
	var lines []string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(got)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) >= len(want) || time.Now().After(deadline) {
			break
		}
	}
	var names []string
	for _, l := range lines {
		names = append(names, gjson.Get(l, "type").Str)
		if s := gjson.Get(l, "sessionId").Str; s != "s1" {
			t.Errorf("%s: sessionId %q", l, s)
		}
	}
	// In order, each once; the custom message's run (no person's prompt)
	// and message_end are not handed over.
	if !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	if e := gjson.Get(lines[3], "error").Str; e != "Command exited with code 3" || strings.Contains(lines[3], "secret output") {
		t.Errorf("tool_execution_end: %s", lines[3])
	}
	// The tool's input, which Pi's own event lacks, kept from its call.
	if c := gjson.Get(lines[3], "input.command").Str; c != "false" {
		t.Errorf("tool_execution_end without its input: %s", lines[3])
	}
	if a := gjson.Get(lines[4], "answer").Str; a != "Done." || gjson.Get(lines[4], "model").Str != "m1" {
		t.Errorf("agent_settled: %s", lines[4])
	}
}

const piDriver = `
const ext = (await import(process.argv[2])).default
const handlers = {}
ext({ on: (name, fn) => (handlers[name] ??= []).push(fn) })
const ctx = { cwd: process.cwd(), sessionManager: { getSessionId: () => "s1", getSessionFile: () => "/tmp/s1.jsonl" } }
const fire = (name, e) => (handlers[name] || []).forEach((fn) => fn(e, ctx))
const later = (ms) => new Promise((r) => setTimeout(r, ms))
fire("session_start", { reason: "startup" })
fire("before_agent_start", { messageType: "user", prompt: "Go." })
fire("before_agent_start", { messageType: "custom" })
fire("tool_call", { toolName: "bash", toolCallId: "c1", input: { command: "false" } })
await later(5)
fire("tool_execution_end", { toolName: "bash", toolCallId: "c1", isError: true,
  result: { content: [{ type: "text", text: "secret output\n\nCommand exited with code 3" }] } })
fire("message_end", { message: { role: "assistant", content: [{ type: "text", text: "Done." }], model: "m1", stopReason: "stop" } })
fire("agent_settled", { aborted: false })
fire("session_shutdown", { reason: "quit" })
process.exit(0)
`
