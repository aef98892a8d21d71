package agent

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// vocabulary is every canonical tool name (tools.go).
var vocabulary = []string{
	Bash, BashOutput, KillShell, Read, Write, Edit, MultiEdit, NotebookEdit, Grep, Glob, LS,
	WebFetch, WebSearch, Task, TodoWrite, TodoRead, AskUserQuestion, Skill, EnterPlanMode, ExitPlanMode,
	ListMcpResource, ReadMcpResource, BashInput, Delete, ApplyPatch, ViewImage, Memory, Browser,
	Intent, CompleteTask,
}

// argNames is every canonical argument name (tools.go).
var argNames = []string{
	ArgCommand, ArgFilePath, ArgNotebookPath, ArgPath, ArgPattern, ArgQuery, ArgURL, ArgDescription,
	ArgSubagentType, ArgPrompt, ArgContent, ArgOldString, ArgNewString, ArgSkill, ArgPatch, ArgIntent,
}

// Every dialect names its tools in the vocabulary, and its arguments in the
// canonical names: a surface acts on those alone.
func TestToolsCanonical(t *testing.T) {
	for _, d := range registry {
		for own, n := range d.Tools {
			if own != strings.ToLower(own) {
				t.Errorf("%s: Tools key %q is not lower-case (names are looked up lower-cased)", d.Agent, own)
			}
			if strings.HasSuffix(n, "*") {
				if !strings.HasSuffix(own, "*") || !strings.HasPrefix(n, "mcp__") {
					t.Errorf("%s: %q → %q: only a prefix may keep the rest, as an MCP name", d.Agent, own, n)
				}
				continue
			}
			if !slices.Contains(vocabulary, n) {
				t.Errorf("%s: %q → %q, not in the vocabulary", d.Agent, own, n)
			}
		}
		for own, list := range d.ToolArgs {
			if _, ok := d.Tools[own]; !ok {
				t.Errorf("%s: ToolArgs for %q, a tool Tools does not name", d.Agent, own)
			}
			for _, a := range list {
				if !slices.Contains(argNames, a.To) {
					t.Errorf("%s %s: %q → %q, not a canonical argument", d.Agent, own, a.From, a.To)
				}
			}
		}
		for _, a := range d.Args {
			if !slices.Contains(argNames, a.To) {
				t.Errorf("%s: %q → %q, not a canonical argument", d.Agent, a.From, a.To)
			}
		}
	}
}

// surfaces are the surface packages: they read the canonical Event and
// never name an agent's tool or argument.
var surfaces = []string{"coucou", "coral", "pulse", "trailboss", "vpet"}

// allowed are string literals of a surface file that equal an agent's tool
// or argument name and mean something else, with what they mean.
var allowed = map[string]string{
	"coucou/script.go shell":             "the app's pill for a script's events",
	"coucou/statusline.go bash":          "the shell the status line command runs in",
	"coral/cli.go summary":               "coral-pulse's own summary command (the Goal: line)",
	"vpet/notify.go agent_name":          "the payload's own agent name (agentica's plugins), not a tool argument",
	"coucou/answer.go ask_user_question": "the app's coucou_kind for a question card (the macOS relay's), not Qwen Code's tool",
}

// No surface package spells an agent's own tool or argument name: every
// string literal of their non-test sources is checked against each
// dialect's Tools keys (a name the vocabulary spells differently, as
// Copilot's grep is Grep, counts; a prefix key counts for every name it
// begins) and Args / ToolArgs sources that are not canonical names
// themselves.
func TestSurfacesNameNoAgentTool(t *testing.T) {
	tools := map[string]string{} // lower-cased own name → the dialects
	var prefixes [][2]string
	args := map[string]string{}
	for _, d := range registry {
		for own := range d.Tools {
			if p, ok := strings.CutSuffix(own, "*"); ok {
				prefixes = append(prefixes, [2]string{p, string(d.Agent)})
				continue
			}
			tools[own] = strings.TrimPrefix(tools[own]+", "+string(d.Agent), ", ")
		}
		lists := [][]Alias{d.Args}
		for _, l := range d.ToolArgs {
			lists = append(lists, l)
		}
		for _, l := range lists {
			for _, a := range l {
				if !slices.Contains(argNames, a.From) && !strings.Contains(args[a.From], string(d.Agent)) {
					args[a.From] = strings.TrimPrefix(args[a.From]+", "+string(d.Agent), ", ")
				}
			}
		}
	}
	for _, pkg := range surfaces {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no sources (%v)", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || s == "" || allowed[pkg+"/"+filepath.Base(f)+" "+s] != "" {
					return true
				}
				at := fset.Position(lit.Pos())
				if a, ok := tools[strings.ToLower(s)]; ok && !slices.Contains(vocabulary, s) {
					t.Errorf("%s: %q is %s's tool name: read Event.Tool, in the vocabulary", at, s, a)
				}
				for _, p := range prefixes {
					if strings.HasPrefix(strings.ToLower(s), p[0]) {
						t.Errorf("%s: %q begins %s's tool names %q*", at, s, p[1], p[0])
					}
				}
				if a, ok := args[s]; ok {
					t.Errorf("%s: %q is %s's argument name: read the canonical one (agent.Arg…)", at, s, a)
				}
				return true
			})
		}
	}
}

// The recorded payloads of every agent: each tool is named in the
// vocabulary (or is an MCP tool), and the arguments a surface reads are
// there under their canonical names.
func TestRecordedToolsCanonical(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(recorded, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(recorded, "*", "*", "*.json"))
	files = append(files, more...)
	wants := map[string][]string{
		Bash: {ArgCommand}, Read: {ArgFilePath}, Write: {ArgFilePath}, Edit: {ArgFilePath},
		Grep: {ArgPattern}, Task: {ArgPrompt}, Intent: {ArgIntent},
	}
	seen := 0
	for _, f := range files {
		rel, _ := filepath.Rel(recorded, f)
		dir := strings.Split(rel, string(filepath.Separator))[0]
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		_, event, _ := strings.Cut(name, "-")
		in := Input{Payload: mustRead(t, f)}
		a, _, _ := strings.Cut(dir, "-")
		if a == "copilot" {
			in.Agent, in.Args = a, []string{event} // as install writes its hooks
		}
		if a == "pi" {
			in.Agent = a // its extension always names it (without, toolName reads as Copilot's)
		}
		ev := Parse(in)
		if ev.Tool == "" || ev.Kind != ToolStart && ev.Kind != ToolEnd && ev.Kind != Permission && ev.Kind != Review {
			continue
		}
		seen++
		if !slices.Contains(vocabulary, ev.Tool) && !strings.HasPrefix(ev.Tool, "mcp__") {
			t.Errorf("%s: %s's tool %q is not in the vocabulary", rel, ev.Agent, ev.AgentTool)
			continue
		}
		var input map[string]json.RawMessage
		if len(ev.ToolInput) > 0 {
			if err := json.Unmarshal(ev.ToolInput, &input); err != nil {
				t.Errorf("%s: input %s: %v", rel, ev.ToolInput, err)
			}
		}
		if len(ev.ToolInput) == 0 {
			continue // a notification that names its tool only in words (Qwen's permission_prompt)
		}
		for _, k := range wants[ev.Tool] {
			if _, ok := input[k]; !ok {
				t.Errorf("%s: %s %s (%s): no %q in %s", rel, ev.Agent, ev.Tool, ev.AgentTool, k, ev.ToolInput)
			}
		}
		if v, ok := input[ArgCommand]; ok && (len(v) == 0 || v[0] != '"') {
			t.Errorf("%s: command %s is not a string", rel, v)
		}
	}
	if seen < 20 {
		t.Errorf("only %d recorded tool events", seen)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkParseTool: what naming a tool costs Parse, per recorded tool
// call (Claude's, whose names are the vocabulary; Gemini's and Copilot's,
// which map both).
func BenchmarkParseTool(b *testing.B) {
	for _, c := range []struct{ file, agent, arg string }{
		{"claude-2.1.328/07-PreToolUse.json", "", ""},
		{"gemini-0.61.0/15-BeforeTool.json", "", ""},
		{"copilot-1.0.102/04-preToolUse.json", "copilot", "preToolUse"},
		{"qwen-0.24.4/07-PreToolUse.json", "", ""},
	} {
		payload, err := os.ReadFile(filepath.Join(recorded, c.file))
		if err != nil {
			b.Fatal(err)
		}
		in := Input{Agent: c.agent, Payload: payload}
		if c.arg != "" {
			in.Args = []string{c.arg}
		}
		b.Run(strings.SplitN(c.file, "-", 2)[0], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(in)
			}
		})
	}
}

// nameTool's rules, on each agent's own names and inputs.
func TestNameTool(t *testing.T) {
	for _, c := range []struct {
		d                *Dialect
		tool, in         string
		wantTool, wantIn string
	}{
		// Beside the agent's own, never over a field it has.
		{antigravity, "run_command", `{"CommandLine":"make","Cwd":"/a"}`, Bash, `{"CommandLine":"make","Cwd":"/a","command":"make"}`},
		{antigravity, "view_file", `{"AbsolutePath":"/a/b","file_path":"/a/c"}`, Read, `{"AbsolutePath":"/a/b","file_path":"/a/c"}`},
		// A tool's own aliases come before the agent's, and one name is added once.
		{antigravity, "grep_search", `{"Query":"x","SearchPath":"/a"}`, Grep, `{"Query":"x","SearchPath":"/a","pattern":"x","path":"/a","query":"x"}`},
		{gemini, "update_topic", `{"title":"T","strategic_intent":"S"}`, Intent, `{"title":"T","strategic_intent":"S","intent":"T"}`},
		// argv is a line: the script a shell runs, else the words.
		{codex, "shell", `{"command":["bash","-lc","cargo test"],"workdir":"/a"}`, Bash, `{"command":"cargo test","workdir":"/a"}`},
		{codex, "container.exec", `{"cmd":["make","all"]}`, Bash, `{"cmd":["make","all"],"command":"make all"}`},
		// Prefix keys; a name no key has is kept; case does not matter.
		{antigravity, "browser_click", `{}`, Browser, `{}`},
		{cursor, "MCP:search_issues", `{"q":"bug"}`, "mcp__search_issues", `{"q":"bug"}`},
		{gemini, "mcp__db__query", ``, "mcp__db__query", ``},
		{copilot, "BASH", `{"command":"make"}`, Bash, `{"command":"make"}`},
		// Copilot's path is a file for its file tools only.
		{copilot, "view", `{"path":"/a/b.go"}`, Read, `{"path":"/a/b.go","file_path":"/a/b.go"}`},
		{copilot, "grep", `{"pattern":"x","path":"/a"}`, Grep, `{"pattern":"x","path":"/a"}`},
	} {
		ev := Event{Tool: c.tool, ToolInput: json.RawMessage(c.in)}
		if c.in == "" {
			ev.ToolInput = nil
		}
		c.d.nameTool(&ev)
		if ev.Tool != c.wantTool || string(ev.ToolInput) != c.wantIn || ev.AgentTool != c.tool {
			t.Errorf("%s %s %s: %q (%q) %s, want %q %s", c.d.Agent, c.tool, c.in, ev.Tool, ev.AgentTool, ev.ToolInput, c.wantTool, c.wantIn)
		}
		again := ev
		c.d.nameTool(&again)
		if again.Tool != ev.Tool || string(again.ToolInput) != string(ev.ToolInput) {
			t.Errorf("%s %s: named twice: %q %s", c.d.Agent, c.tool, again.Tool, again.ToolInput)
		}
	}
}
