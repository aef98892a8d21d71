package live

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// cmdCodexAppServer: codex-app-server NAME DECISION PROMPT
// Drives one turn through `codex app-server` (stdio JSON-RPC, the engine
// behind Codex's TUI), as its TUI would: trusts every configured hook the
// way /hooks does (hooks/list, then config/batchWrite of each hook's
// trusted_hash), starts a thread with approval policy "untrusted" and the
// workspace-write sandbox, sends PROMPT, and answers each approval request Codex
// asks its client with DECISION (accept, decline, or none: never answer).
// The protocol log is $WORK/NAME.log; $WORK/NAME.asked lists the approval
// requests the client got, one method per line.
func cmdCodexAppServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: codex-app-server NAME DECISION PROMPT")
	}
	name, decision, prompt := args[0], args[1], args[2]
	cmd := exec.Command(ts.Getenv("CODEX"), "app-server")
	cmd.Dir = ts.MkAbs("proj")
	cmd.Env = envOf(ts)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	stderr, err := os.Create(ts.MkAbs(name + ".stderr"))
	ts.Check(err)
	defer stderr.Close()
	cmd.Stderr = stderr
	logf, err := os.Create(ts.MkAbs(name + ".log"))
	ts.Check(err)
	defer logf.Close()
	asked, err := os.Create(ts.MkAbs(name + ".asked"))
	ts.Check(err)
	defer asked.Close()
	ts.Check(cmd.Start())
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()

	var mu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(logf, ">> %s\n", b)
		stdin.Write(append(b, '\n'))
	}
	replies := map[int64]chan gjson.Result{}
	completed := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			fmt.Fprintf(logf, "<< %s\n", line)
			mu.Unlock()
			m := gjson.Parse(line)
			method, id := m.Get("method").String(), m.Get("id")
			switch {
			case method != "" && id.Exists(): // Codex asks its client
				if strings.Contains(method, "requestApproval") || strings.HasSuffix(method, "Approval") {
					fmt.Fprintln(asked, method)
					if decision != "none" {
						send(map[string]any{"jsonrpc": "2.0", "id": id.Value(), "result": map[string]any{"decision": decision}})
					}
					continue
				}
				send(map[string]any{"jsonrpc": "2.0", "id": id.Value(), "error": map[string]any{"code": -32601, "message": "not supported"}})
			case id.Exists():
				mu.Lock()
				ch := replies[id.Int()]
				mu.Unlock()
				if ch != nil {
					ch <- m
				}
			case method == "turn/completed":
				once.Do(func() { close(completed) })
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	next := int64(0)
	call := func(method string, params any) gjson.Result {
		next++
		ch := make(chan gjson.Result, 1)
		mu.Lock()
		replies[next] = ch
		mu.Unlock()
		send(map[string]any{"jsonrpc": "2.0", "id": next, "method": method, "params": params})
		select {
		case r := <-ch:
			if r.Get("error").Exists() {
				ts.Fatalf("codex app-server %s: %s", method, r.Get("error").Raw)
			}
			return r.Get("result")
		case <-time.After(30 * time.Second):
			ts.Fatalf("codex app-server %s: no reply; see %s.stderr", method, name)
		}
		return gjson.Result{}
	}

	call("initialize", map[string]any{"clientInfo": map[string]any{"name": "hookwire-live", "title": nil, "version": "0"}, "capabilities": nil})
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized"})
	// Trust every hook, as a person does with /hooks in the TUI.
	state := map[string]any{}
	call("hooks/list", map[string]any{"cwds": []string{ts.MkAbs("proj")}}).Get("data.#.hooks").ForEach(func(_, hooks gjson.Result) bool {
		hooks.ForEach(func(_, h gjson.Result) bool {
			state[h.Get("key").String()] = map[string]any{"trusted_hash": h.Get("currentHash").String()}
			return true
		})
		return true
	})
	if len(state) == 0 {
		ts.Fatalf("codex app-server: hooks/list lists no hooks")
	}
	call("config/batchWrite", map[string]any{"edits": []any{map[string]any{"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}}, "reloadUserConfig": true})
	// workspace-write: a hook's allow lets the command run in Codex's
	// sandbox (a client's accept runs it outside), so a read-only sandbox
	// would refuse it after an allow.
	thread := call("thread/start", map[string]any{"cwd": ts.MkAbs("proj"), "approvalPolicy": "untrusted", "sandbox": "workspace-write"}).Get("thread.id").String()
	call("turn/start", map[string]any{"threadId": thread, "input": []any{map[string]any{"type": "text", "text": prompt, "text_elements": []any{}}}})
	select {
	case <-completed:
	case <-time.After(60 * time.Second):
		ts.Fatalf("codex app-server: the turn did not complete; see %s.log", name)
	}
}

// envOf is the script's environment, for a child the script does not exec:
// testscript lists it to a program it runs, and to nobody else.
func envOf(ts *testscript.TestScript) []string {
	ts.Check(ts.Exec("env", "-0"))
	var env []string
	for _, kv := range strings.Split(ts.ReadFile("stdout"), "\x00") {
		if strings.Contains(kv, "=") {
			env = append(env, kv)
		}
	}
	return env
}
