package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The plugin itself, run by node (opencode runs it in Bun; both give it
// node:child_process and node:fs) under a driver that plays opencode: it
// fires events as opencode does, a few milliseconds apart, and the command
// appends each payload it is handed to a file. Without node the test skips.
func TestOpencodePlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	dir := t.TempDir()
	got := filepath.Join(dir, "got.jsonl")
	// The command: a payload on stdin, appended whole, slowly enough that
	// a process started at once would overtake it.
	rec := filepath.Join(dir, "rec.sh")
	if err := os.WriteFile(rec, []byte("#!/bin/sh\np=$(cat)\nsleep 0.05\nprintf '%s argv=%s\\n' \"$p\" \"$*\" >> "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	events := map[string]time.Duration{}
	for _, n := range opencode.Events {
		if n.Kind != Unknown {
			events[n.Name] = 10 * time.Second
		}
	}
	plugin := filepath.Join(dir, "hookwire-rec.mjs")
	if err := os.WriteFile(plugin, opencode.Settings.Plugin.Source([]string{rec, "--agent", "opencode"}, events), 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(dir, "driver.mjs")
	if err := os.WriteFile(driver, []byte(opencodeDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, driver, plugin, got)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("driver: %v\n%s", err, out)
	}
	// The last event came as the driver exited: wait for its process.
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(got)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) >= 16 || time.Now().After(deadline) {
			break
		}
	}
	var names []string
	for _, l := range lines {
		p, argv, _ := strings.Cut(l, " argv=")
		if argv != "--agent opencode" {
			t.Errorf("argv %q", argv)
		}
		if d := gjson.Get(p, "directory").String(); d != dir {
			t.Errorf("%s: directory %q", gjson.Get(p, "type"), d)
		}
		names = append(names, strings.TrimSpace(gjson.Get(p, "type").String()+" "+gjson.Get(p, "answer").String()+" "+gjson.Get(p, "parentID").String()))
	}
	// In opencode's order; no text part and no session.status; one
	// session.idle per turn, with the turn's last text, none after the
	// error; the tool part in error. Then a turn whose idle was still
	// queued when the driver exited, its prompt's process still running
	// (50 ms): delivered after it.
	// A subagent's chat.message before its session.created (a bus event,
	// delivered apart from the hooks): its task's prompt names the parent.
	want := []string{
		"session.created", "chat.message", "tool.execute.before", "tool.execute.after",
		"tool.execute.before", "message.part.updated", "session.idle Done: both ran.",
		"chat.message", "session.error",
		"tool.execute.before", "chat.message  ses_1", "session.created  ses_1", "session.idle Found. ses_1", "tool.execute.after",
		"chat.message", "session.idle Bye.",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("handed over:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

// opencodeDriver loads the plugin as opencode does and fires its events.
const opencodeDriver = `
const [plugin, got] = process.argv.slice(2)
const { hookwire } = await import(plugin)
const hooks = await hookwire({ directory: process.cwd() })
const sid = "ses_1"
const ev = (type, properties) => hooks.event({ event: { id: "evt_" + type, type, properties } })
const text = (id, t, end) => ev("message.part.updated", { sessionID: sid, part: { id, sessionID: sid, type: "text", text: t, time: end ? { start: 1, end: 2 } : { start: 1 } } })
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

await ev("session.created", { sessionID: sid, info: { id: sid } })
await hooks["chat.message"]({ sessionID: sid }, { message: { id: "msg_1", role: "user" }, parts: [{ type: "text", text: "Go." }] })
await ev("session.status", { sessionID: sid, status: { type: "busy" } })
await hooks["tool.execute.before"]({ tool: "bash", sessionID: sid, callID: "c1" }, { args: { command: "ls" } })
await hooks["tool.execute.after"]({ tool: "bash", sessionID: sid, callID: "c1", args: { command: "ls" } }, { title: "ls", output: "a", metadata: { exit: 0, output: "a" } })
await hooks["tool.execute.before"]({ tool: "read", sessionID: sid, callID: "c2" }, { args: { filePath: "/x" } })
await ev("message.part.updated", { sessionID: sid, part: { type: "tool", tool: "read", callID: "c2", sessionID: sid, state: { status: "running", input: {} } } })
await ev("message.part.updated", { sessionID: sid, part: { type: "tool", tool: "read", callID: "c2", sessionID: sid, state: { status: "error", input: {}, error: "File not found: /x" } } })
await text("p1", "Do", false)
await text("p1", "Done: both", false)
await text("p1", "Done: both ran.", true)
await ev("session.idle", { sessionID: sid })
await hooks["chat.message"]({ sessionID: sid }, { message: { id: "msg_2", role: "user" }, parts: [{ type: "text", text: "Again." }] })
await ev("session.error", { sessionID: sid, error: { name: "APIError", data: { message: "Not Found", statusCode: 404, responseBody: "x".repeat(100000) } } })
await ev("session.error", { sessionID: sid, error: { name: "APIError", data: { message: "Not Found", statusCode: 404 } } })
await ev("session.idle", { sessionID: sid })
await ev("session.idle", { sessionID: sid })
await hooks["tool.execute.before"]({ tool: "task", sessionID: sid, callID: "t1" }, { args: { prompt: "Look.", subagent_type: "general" } })
await hooks["chat.message"]({ sessionID: "ses_c" }, { message: { id: "msg_c", role: "user", agent: "general" }, parts: [{ type: "text", text: "Look." }] })
await ev("session.created", { sessionID: "ses_c", info: { id: "ses_c", parentID: sid } })
await ev("message.part.updated", { sessionID: "ses_c", part: { id: "pc", sessionID: "ses_c", type: "text", text: "Found.", time: { start: 1, end: 2 } } })
await ev("session.idle", { sessionID: "ses_c" })
await hooks["tool.execute.after"]({ tool: "task", sessionID: sid, callID: "t1", args: {} }, { title: "t", output: "Found.", metadata: {} })
// Everything so far delivered (each process takes 50 ms), then a turn
// whose idle is the last thing before the exit.
for (let i = 0; i < 200; i++) {
  await sleep(50)
  const fs = await import("node:fs")
  if (fs.existsSync(got) && fs.readFileSync(got, "utf8").trim().split("\n").length >= 14) break
}
await hooks["chat.message"]({ sessionID: sid }, { message: { id: "msg_3", role: "user" }, parts: [{ type: "text", text: "Bye?" }] })
await text("p2", "Bye.", true)
await ev("session.idle", { sessionID: sid })
process.exit(0)
`
