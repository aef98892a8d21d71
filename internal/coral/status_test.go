package coral

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// tool is the event of a tool about to run, as the agent's dialect makes
// it from the agent's own tool name and input.
func tool(a agent.Agent, name, input string) agent.Event {
	p := map[string]any{"hook_event_name": "PreToolUse", "cwd": "/home/u/app", "tool_name": name}
	if input != "" {
		p["tool_input"] = json.RawMessage(input)
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return agent.Parse(agent.Input{Agent: string(a), Payload: b})
}

// One row per tool of each agent, with its input shape, as the agent's
// dialect names it: the statuses come from the canonical names.
var toolCases = []struct {
	ev   agent.Event
	want string
}{
	// Claude Code.
	{tool(agent.Claude, "Bash", `{"command":"go test ./...","description":"Run the tests"}`), "Running go test ./..."},
	{tool(agent.Claude, "Bash", `{"command":"cd /home/u/app && make -j4 \\\n  all"}`), "Running make -j4 \\"},
	{tool(agent.Claude, "Bash", `{"command":"\n\ngit status\ngit diff"}`), "Running git status"},
	{tool(agent.Claude, "Read", `{"file_path":"/home/u/app/README.md"}`), "Reading README.md"},
	{tool(agent.Claude, "Read", `{"file_path":"/home/u/notes/todo.md"}`), "Reading ~/notes/todo.md"},
	{tool(agent.Claude, "Read", `{"file_path":"/etc/hosts"}`), "Reading /etc/hosts"},
	{tool(agent.Claude, "Edit", `{"file_path":"/home/u/app/internal/hook/run.go","old_string":"a","new_string":"b"}`), "Editing internal/hook/run.go"},
	{tool(agent.Claude, "MultiEdit", `{"file_path":"/home/u/app/a.go","edits":[]}`), "Editing a.go"},
	{tool(agent.Claude, "Write", `{"file_path":"/home/u/app/docs/new.md","content":"x"}`), "Writing docs/new.md"},
	{tool(agent.Claude, "NotebookEdit", `{"notebook_path":"/home/u/app/nb.ipynb"}`), "Editing nb.ipynb"},
	{tool(agent.Claude, "Grep", `{"pattern":"Deadline","path":"internal"}`), `Searching for "Deadline"`},
	{tool(agent.Claude, "Glob", `{"pattern":"**/*.go"}`), `Finding "**/*.go"`},
	{tool(agent.Claude, "LS", `{"path":"/home/u/app/internal"}`), "Listing internal"},
	{tool(agent.Claude, "WebFetch", `{"url":"https://www.example.com/docs?page=2","prompt":"summarize"}`), "Fetching example.com"},
	{tool(agent.Claude, "WebSearch", `{"query":"tmux pipe-pane append"}`), `Searching the web for "tmux pipe-pane append"`},
	{tool(agent.Claude, "Task", `{"description":"Find the flaky test","prompt":"…","subagent_type":"general-purpose"}`), "Delegating: Find the flaky test"},
	{tool(agent.Claude, "Agent", `{"prompt":"Review the diff"}`), "Delegating: Review the diff"},
	{tool(agent.Claude, "TodoWrite", `{"todos":[]}`), "Updating the plan"},
	{tool(agent.Claude, "TodoRead", `{}`), "Reading the plan"},
	{tool(agent.Claude, "ExitPlanMode", `{"plan":"…"}`), "Presenting a plan"},
	{tool(agent.Claude, "AskUserQuestion", `{"questions":[]}`), "Asking a question"},
	{tool(agent.Claude, "Skill", `{"skill":"pdf"}`), "Using skill pdf"},
	{tool(agent.Claude, "SlashCommand", `{"command":"/review"}`), "Using skill /review"},
	{tool(agent.Claude, "BashOutput", `{"bash_id":"b1"}`), "Checking command output"},
	{tool(agent.Claude, "KillShell", `{"shell_id":"b1"}`), "Stopping a command"},
	{tool(agent.Claude, "KillBash", `{"shell_id":"b1"}`), "Stopping a command"},
	{tool(agent.Claude, "mcp__github__create_issue", `{"title":"x"}`), "Using github/create_issue"},
	{tool(agent.Claude, "Bash", `{}`), "Running a command"},
	{tool(agent.Claude, "Read", ``), "Reading a file"},
	{tool(agent.Claude, "Frobnicate", `{}`), "Using Frobnicate"},
	{tool(agent.Claude, "", ``), "Using a tool"},

	// Gemini CLI.
	{tool(agent.Gemini, "run_shell_command", `{"command":"ls -la","description":"list"}`), "Running ls -la"},
	{tool(agent.Gemini, "read_file", `{"absolute_path":"/home/u/app/a.go"}`), "Reading a.go"},
	{tool(agent.Gemini, "read_file", `{"file_path":"/home/u/app/b.go"}`), "Reading b.go"},
	{tool(agent.Gemini, "read_many_files", `{"paths":["/home/u/app/x.go","y.go"]}`), "Reading x.go"},
	{tool(agent.Gemini, "write_file", `{"file_path":"/home/u/app/out.txt","content":"x"}`), "Writing out.txt"},
	{tool(agent.Gemini, "replace", `{"file_path":"/home/u/app/a.go","old_string":"x","new_string":"y"}`), "Editing a.go"},
	{tool(agent.Gemini, "glob", `{"pattern":"src/**/*.ts"}`), `Finding "src/**/*.ts"`},
	{tool(agent.Gemini, "search_file_content", `{"pattern":"TODO\\("}`), `Searching for "TODO\("`},
	{tool(agent.Gemini, "list_directory", `{"path":"/home/u/app/cmd"}`), "Listing cmd"},
	{tool(agent.Gemini, "list_directory", `{"dir_path":"/srv"}`), "Listing /srv"},
	{tool(agent.Gemini, "web_fetch", `{"prompt":"Summarize https://go.dev/doc/go1.26 please"}`), "Fetching go.dev"},
	{tool(agent.Gemini, "web_fetch", `{"prompt":"no address here"}`), "Fetching a web page"},
	{tool(agent.Gemini, "google_web_search", `{"query":"gjson path syntax"}`), `Searching the web for "gjson path syntax"`},
	{tool(agent.Gemini, "save_memory", `{"fact":"x"}`), "Saving a memory"},
	{tool(agent.Gemini, "write_todos", `{"todos":[]}`), "Updating the plan"},
	{tool(agent.Gemini, "update_topic", `{"strategic_intent":"Find it","summary":"s","title":"Checking the notes"}`), "Checking the notes"},
	{tool(agent.Gemini, "ask_user", `{"questions":[{"question":"Go on?"}]}`), "Asking a question"},
	{tool(agent.Gemini, "invoke_agent", `{"agent_name":"codebase_investigator","prompt":"Where?"}`), "Delegating: codebase_investigator"},
	{tool(agent.Gemini, "enter_plan_mode", `{"reason":"r"}`), "Planning"},
	{tool(agent.Gemini, "exit_plan_mode", `{"plan_filename":"p.md"}`), "Presenting a plan"},
	{tool(agent.Gemini, "activate_skill", `{"name":"pdf"}`), "Using skill pdf"},
	{tool(agent.Gemini, "complete_task", `{}`), "Finishing the task"},
	{tool(agent.Gemini, "read_mcp_resource", `{"uri":"x://y"}`), "Reading an MCP resource"},
	{tool(agent.Gemini, "list_mcp_resources", `{}`), "Reading an MCP resource"},
	{tool(agent.Gemini, "get_internal_docs", `{"path":"/home/u/app/docs/a.md"}`), "Reading docs/a.md"},
	{tool(agent.Gemini, "mcp__db__query", `{}`), "Using db/query"},

	// Antigravity: PascalCase arguments.
	{tool(agent.Antigravity, "run_command", `{"CommandLine":"go test ./...","Cwd":"/home/u/app"}`), "Running go test ./..."},
	{tool(agent.Antigravity, "view_file", `{"AbsolutePath":"/home/u/app/main.go"}`), "Reading main.go"},
	{tool(agent.Antigravity, "view_file", `{"FilePath":"/home/u/app/a.go"}`), "Reading a.go"},
	{tool(agent.Antigravity, "view_file_outline", `{"AbsolutePath":"/home/u/app/b.go"}`), "Reading b.go"},
	{tool(agent.Antigravity, "view_code_item", `{"File":"/home/u/app/b.go"}`), "Reading a file"},
	{tool(agent.Antigravity, "edit_file", `{"TargetFile":"/home/u/app/c.go"}`), "Editing c.go"},
	{tool(agent.Antigravity, "write_to_file", `{"TargetFile":"/home/u/app/d.go","CodeContent":"x"}`), "Writing d.go"},
	{tool(agent.Antigravity, "replace_file_content", `{"TargetFile":"/home/u/app/e.go"}`), "Editing e.go"},
	{tool(agent.Antigravity, "multi_replace_file_content", `{"TargetFile":"/home/u/app/f.go"}`), "Editing f.go"},
	{tool(agent.Antigravity, "codebase_search", `{"Query":"where is the deadline set"}`), `Searching for "where is the deadline set"`},
	{tool(agent.Antigravity, "grep_search", `{"Query":"setBudget","SearchPath":"/home/u/app"}`), `Searching for "setBudget"`},
	{tool(agent.Antigravity, "find_by_name", `{"Pattern":"*_test.go","SearchDirectory":"/home/u/app"}`), `Finding "*_test.go"`},
	{tool(agent.Antigravity, "list_dir", `{"DirectoryPath":"/home/u/app/internal"}`), "Listing internal"},
	{tool(agent.Antigravity, "read_url_content", `{"Url":"https://pkg.go.dev/testing"}`), "Fetching pkg.go.dev"},
	{tool(agent.Antigravity, "search_web", `{"query":"kong default command"}`), `Searching the web for "kong default command"`},
	{tool(agent.Antigravity, "command_status", `{"CommandId":"c1"}`), "Checking command output"},
	{tool(agent.Antigravity, "send_command_input", `{"Input":"y"}`), "Sending input to a command"},
	{tool(agent.Antigravity, "browser_click", `{}`), "Using the browser"},

	// Codex.
	{tool(agent.Codex, "Bash", `{"command":"cargo test"}`), "Running cargo test"},
	{tool(agent.Codex, "shell", `{"command":["bash","-lc","cargo build --release"]}`), "Running cargo build --release"},
	{tool(agent.Codex, "local_shell", `{"command":["ls","-la"]}`), "Running ls -la"},
	{tool(agent.Codex, "exec_command", `{"cmd":"npm test"}`), "Running npm test"},
	{tool(agent.Codex, "container.exec", `{"cmd":["make"]}`), "Running make"},
	{tool(agent.Codex, "apply_patch", `{"input":"*** Begin Patch\n*** Update File: /home/u/app/src/lib.rs\n@@\n-a\n+b\n*** End Patch"}`), "Editing src/lib.rs"},
	{tool(agent.Codex, "apply_patch", `{"command":"*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch"}`), "Editing notes.md"},
	{tool(agent.Codex, "update_plan", `{"plan":[]}`), "Updating the plan"},
	{tool(agent.Codex, "web_search", `{"query":"rust borrow checker"}`), `Searching the web for "rust borrow checker"`},
	{tool(agent.Codex, "view_image", `{"path":"/tmp/x.png"}`), "Viewing an image"},
	{tool(agent.Codex, "write_stdin", `{"chars":"y"}`), "Sending input to a command"},

	// Cursor.
	{tool(agent.Cursor, "Shell", `{"command":"npm test"}`), "Running npm test"},
	{tool(agent.Cursor, "Read", `{"file_path":"/home/u/app/a.go"}`), "Reading a.go"},
	{tool(agent.Cursor, "Write", `{"file_path":"/home/u/app/a.go"}`), "Writing a.go"},
	{tool(agent.Cursor, "Edit", `{"file_path":"/home/u/app/a.go"}`), "Editing a.go"},
	{tool(agent.Cursor, "Delete", `{"file_path":"/home/u/app/old.go"}`), "Deleting old.go"},
	{tool(agent.Cursor, "Grep", `{"pattern":"func main"}`), `Searching for "func main"`},
	{tool(agent.Cursor, "Task", `{"description":"Audit deps"}`), "Delegating: Audit deps"},
	{tool(agent.Cursor, "run_terminal_cmd", `{"command":"go vet ./..."}`), "Running go vet ./..."},
	{tool(agent.Cursor, "read_file", `{"target_file":"src/a.ts"}`), "Reading src/a.ts"},
	{tool(agent.Cursor, "edit_file", `{"target_file":"src/b.ts"}`), "Editing src/b.ts"},
	{tool(agent.Cursor, "delete_file", `{"target_file":"src/c.ts"}`), "Deleting src/c.ts"},
	{tool(agent.Cursor, "grep_search", `{"query":"useEffect"}`), `Searching for "useEffect"`},
	{tool(agent.Cursor, "codebase_search", `{"query":"auth flow"}`), `Searching for "auth flow"`},
	{tool(agent.Cursor, "file_search", `{"query":"config"}`), `Finding "config"`},
	{tool(agent.Cursor, "list_dir", `{"relative_workspace_path":"src"}`), "Listing src"},
	{tool(agent.Cursor, "web_search", `{"search_term":"vite config"}`), `Searching the web for "vite config"`},
	{tool(agent.Cursor, "MCP:search_issues", `{"q":"bug"}`), "Using search_issues"},

	// Copilot CLI.
	{tool(agent.Copilot, "bash", `{"command":"make","description":"build"}`), "Running make"},
	{tool(agent.Copilot, "view", `{"path":"/home/u/app/a.go"}`), "Reading a.go"},
	{tool(agent.Copilot, "create", `{"path":"/home/u/app/new.go","file_text":"x"}`), "Writing new.go"},
	{tool(agent.Copilot, "edit", `{"path":"/home/u/app/a.go","old_str":"x","new_str":"y"}`), "Editing a.go"},
	{tool(agent.Copilot, "str_replace_editor", `{"command":"str_replace","path":"/home/u/app/a.go"}`), "Editing a.go"},
	{tool(agent.Copilot, "grep", `{"pattern":"TODO"}`), `Searching for "TODO"`},
	{tool(agent.Copilot, "glob", `{"pattern":"*.md"}`), `Finding "*.md"`},
	{tool(agent.Copilot, "web_fetch", `{"url":"http://localhost:8080/health"}`), "Fetching localhost"},
	{tool(agent.Copilot, "fetch", `{"url":"https://api.github.com/repos"}`), "Fetching api.github.com"},
	{tool(agent.Copilot, "report_intent", `{"intent":"Exploring the codebase"}`), "Exploring the codebase"},
	{tool(agent.Copilot, "update_todo", `{}`), "Updating the plan"},
	{tool(agent.Copilot, "read_bash", `{"sessionId":"1"}`), "Checking command output"},
	{tool(agent.Copilot, "write_bash", `{"sessionId":"1","input":"y"}`), "Sending input to a command"},
	{tool(agent.Copilot, "stop_bash", `{"sessionId":"1"}`), "Stopping a command"},
	{tool(agent.Copilot, "BASH", `{"command":"make"}`), "Running make"},
}

func TestToolStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		// Its paths are Unix ones; on Windows coral-pulse shows nothing.
		t.Skip("Coral lives with tmux, on Linux and macOS: no Windows end")
	}
	for _, c := range toolCases {
		if got := ToolStatus(c.ev, "/home/u"); got != c.want {
			t.Errorf("%s %s (%s) %s: %q, want %q", c.ev.Agent, c.ev.AgentTool, c.ev.Tool, c.ev.ToolInput, got, c.want)
		}
	}
}

// Every name in the table has a case.
func TestToolTableCovered(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range toolCases {
		seen[c.ev.Tool] = true // the canonical name
	}
	for name := range tools {
		if !seen[name] {
			t.Errorf("tool %q has no test case", name)
		}
	}
}

// Long arguments fit in 60 runes: commands cut at the end, paths at the
// start, patterns inside their quotes.
func TestToolStatusClipping(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		ev   agent.Event
		want string
	}{
		{tool(agent.Claude, "Bash", `{"command":"echo `+long+`"}`), "Running echo " + strings.Repeat("x", 46) + "…"},
		{tool(agent.Claude, "Read", `{"file_path":"/home/u/app/internal/very/deep/package/path/with/many/parts/file_name.go"}`),
			"Reading …/deep/package/path/with/many/parts/file_name.go"},
		{tool(agent.Claude, "Grep", `{"pattern":"`+long+`"}`), `Searching for "` + strings.Repeat("x", 43) + `…"`},
	} {
		got := ToolStatus(c.ev, "/home/u")
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.ev.Tool, got, c.want)
		}
		if n := len([]rune(got)); n > MaxStatus {
			t.Errorf("%s: %d runes", c.ev.Tool, n)
		}
	}
}

func TestTags(t *testing.T) {
	ev := func(k agent.Kind, f func(*agent.Event)) agent.Event {
		e := agent.Event{Kind: k, Agent: agent.Claude, Cwd: "/home/u/app"}
		if f != nil {
			f(&e)
		}
		return e
	}
	for _, c := range []struct {
		name string
		ev   agent.Event
		want []Tag
	}{
		{"session_start", ev(agent.SessionStart, nil), []Tag{{Status, "Waiting for instructions"}}},
		{"prompt", ev(agent.Prompt, func(e *agent.Event) { e.Prompt = "\n\n## Fix the flaky test in run_test.go\n\nIt fails 1 in 20." }),
			[]Tag{{Summary, "Fix the flaky test in run_test.go"}, {Status, "Thinking"}}},
		{"prompt, an acknowledgement", ev(agent.Prompt, func(e *agent.Event) { e.Prompt = "Yes." }), []Tag{{Status, "Thinking"}}},
		{"prompt, a slash command", ev(agent.Prompt, func(e *agent.Event) { e.Prompt = "/compact" }), []Tag{{Status, "Thinking"}}},
		{"prompt, markup first", ev(agent.Prompt, func(e *agent.Event) { e.Prompt = "<context>\n```\n- Rename Foo to Bar\n" }),
			[]Tag{{Summary, "Rename Foo to Bar"}, {Status, "Thinking"}}},
		{"thinking", ev(agent.Thinking, nil), []Tag{{Status, "Thinking"}}},
		{"tool_end", ev(agent.ToolEnd, nil), []Tag{{Status, "Thinking"}}},
		{"permission", ev(agent.Permission, func(e *agent.Event) { e.Tool = "Bash" }), []Tag{{Status, "Waiting for approval: Bash"}}},
		{"permission, MCP", ev(agent.Permission, func(e *agent.Event) { e.Tool = "mcp__github__merge_pr" }),
			[]Tag{{Status, "Waiting for approval: github/merge_pr"}}},
		{"permission, no tool", ev(agent.Permission, func(e *agent.Event) { e.Message = "Allow run_shell_command?" }),
			[]Tag{{Status, "Waiting for approval"}}},
		{"attention", ev(agent.Attention, nil), []Tag{{Status, "Waiting for input"}}},
		{"turn_end", ev(agent.TurnEnd, nil), []Tag{{Status, "Waiting for instructions"}}},
		{"interrupted", ev(agent.Interrupted, nil), []Tag{{Status, "Interrupted"}}},
		{"error type", ev(agent.Error, func(e *agent.Event) { e.ErrorType = "rate_limit" }), []Tag{{Status, "Stopped: rate limit"}}},
		{"error message", ev(agent.Error, func(e *agent.Event) { e.Error = "Model overloaded\nretry later" }), []Tag{{Status, "Stopped: Model overloaded"}}},
		{"error", ev(agent.Error, nil), []Tag{{Status, "Stopped: error"}}},
		{"compact", ev(agent.Compact, nil), []Tag{{Status, "Compacting context"}}},
		{"subagent_start", ev(agent.SubagentStart, nil), nil},
		{"subagent_stop", ev(agent.SubagentStop, nil), nil},
		{"text", ev(agent.Text, nil), nil},
		{"unknown", ev(agent.Unknown, nil), nil},
		{"session_end", ev(agent.SessionEnd, nil), []Tag{{Status, "Session ended"}}},
	} {
		got := Tags(c.ev, "/home/u")
		if len(got) != len(c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %q, want %q", c.name, got, c.want)
			}
		}
	}
}
