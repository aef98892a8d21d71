package install

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tailscale/hujson"

	"github.com/hookwire/hookwire/internal/agent"
)

var testSpec = Spec{
	Binary:    "nb-hook",
	Timeout:   10 * time.Second,
	Approval:  120 * time.Second,
	Approvals: []agent.Kind{agent.Permission},
	Kinds:     []agent.Kind{agent.SessionStart, agent.ToolStart, agent.Permission, agent.TurnEnd, agent.SessionEnd},
}

func TestInstallClaudeKeepsEverythingElse(t *testing.T) {
	in := `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "/opt/old/nb-hook", "timeout": 5},
                    {"type": "command", "command": "say done"}
                ]
            }
        ]
    },
    "permissions": {"allow": ["Bash(ls)"]}
}
`
	out, err := testSpec.Install(Agents["claude"], []byte(in), "/usr/local/bin/nb-hook")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]
            },
            {
                "matcher": "*",
                "hooks": [
                    {
                        "type": "command",
                        "command": "/usr/local/bin/nb-hook",
                        "timeout": 10
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "say done"}
                ]
            },
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "/usr/local/bin/nb-hook",
                        "timeout": 10
                    }
                ]
            }
        ],
        "SessionStart": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "/usr/local/bin/nb-hook",
                        "timeout": 10
                    }
                ]
            }
        ],
        "PermissionRequest": [
            {
                "matcher": "*",
                "hooks": [
                    {
                        "type": "command",
                        "command": "/usr/local/bin/nb-hook",
                        "timeout": 120
                    }
                ]
            }
        ],
        "SessionEnd": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "/usr/local/bin/nb-hook"
                    }
                ]
            }
        ]
    },
    "permissions": {"allow": ["Bash(ls)"]}
}
`
	if string(out) != want {
		t.Errorf("got:\n%s", out)
	}
	again, err := testSpec.Install(Agents["claude"], out, "/usr/local/bin/nb-hook")
	if err != nil || string(again) != string(out) {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	back, err := testSpec.Uninstall(Agents["claude"], out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(back), "nb-hook") || !strings.Contains(string(back), "guard.sh") || !strings.Contains(string(back), "say done") {
		t.Errorf("uninstall:\n%s", back)
	}
}

func TestInstallRefusesWhatTheAgentRejects(t *testing.T) {
	for _, tc := range []struct{ agent, in string }{
		{"claude", `{"a": 1, // comment` + "\n}"},
		{"claude", `{"a": 1,}`},
		{"gemini", `{"a": [1, 2,],}`},
		{"gemini", `[1]`},
		{"cursor", `{"version": 1, "hooks": {"stop": [}}`},
	} {
		if _, err := testSpec.Install(Agents[tc.agent], []byte(tc.in), "/x/nb-hook"); err == nil {
			t.Errorf("%s accepted %q", tc.agent, tc.in)
		}
	}
	// Gemini reads comments: they stay.
	out, err := testSpec.Install(Agents["gemini"], []byte("{\n  // mine\n  \"theme\": \"dark\"\n}\n"), "/x/nb-hook")
	if err != nil || !strings.Contains(string(out), "// mine") || !strings.Contains(string(out), `"timeout": 10000`) {
		t.Errorf("%v\n%s", err, out)
	}
}

func TestOwns(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/nb-hook":                                            true,
		"nb-hook --agent gemini PreToolUse":                                 true,
		`"/Users/u/My Tools/nb-hook" --agent x`:                             true,
		`/bin/sh "/Users/u/Library/Application Support/NotchBuddy/nb-hook"`: true,
		`'/opt/it'\''s/nb-hook'`:                                            true,
		`C:\tools\nb-hook.exe --agent copilot`:                              true,
		"/usr/local/bin/nb-hook-wrapper":                                    false,
		"say nb-hook":                                                       false,
		"":                                                                  false,
	} {
		if got := testSpec.owns(cmd); got != want {
			t.Errorf("owns(%q) = %v", cmd, got)
		}
	}
	if onWindows {
		return // quote's Unix form: TestQuoteWindows has Windows's
	}
	claude := Agents["claude"]
	if claude.quote("/a b/nb-hook") != `'/a b/nb-hook'` || words(claude.quote("/it's/x"))[0] != "/it's/x" {
		t.Error("quote")
	}
}

// TestQuoteWindows: a Windows path in a hook's command is quoted for the
// shell the agent runs hooks in there (docs/reference/windows-shells.md),
// never in single quotes around a backslash (issue 39: cmd.exe said "not
// recognized"), and install's own parsing still finds the binary in it.
func TestQuoteWindows(t *testing.T) {
	defer func(w bool) { onWindows = w }(onWindows)
	onWindows = true
	for _, c := range []struct{ agent, path, want string }{
		{"claude", `C:\Users\me\bin\nb-hook.exe`, `"C:\Users\me\bin\nb-hook.exe"`},
		{"claude", `C:\Users\Jo Smith\bin\nb-hook.exe`, `"C:\Users\Jo Smith\bin\nb-hook.exe"`},
		{"claude", `\\srv\$share\nb-hook.exe`, `"\\\srv\\\$share\nb-hook.exe"`},
		{"codex", `C:\Users\me\bin\nb-hook.exe`, `C:\Users\me\bin\nb-hook.exe`},
		{"codex", `C:\Program Files\hookwire\nb-hook.exe`, `"C:\Program Files\hookwire\nb-hook.exe"`},
		// Qwen Code runs hooks in cmd.exe, or in bash when started from
		// Git Bash: a bare path would lose its backslashes there.
		{"qwen", `C:\Users\me\bin\nb-hook.exe`, `"C:\Users\me\bin\nb-hook.exe"`},
		{"gemini", `C:\Users\me\bin\nb-hook.exe`, `C:\Users\me\bin\nb-hook.exe`},
		{"gemini", `C:\Users\Jo's PC\nb-hook.exe`, `& 'C:\Users\Jo''s PC\nb-hook.exe'`},
		{"copilot", `C:\Program Files\nb-hook.exe`, `& 'C:\Program Files\nb-hook.exe'`},
		// Cline's event files are #!/bin/sh scripts, which it runs in sh
		// there too: a bare path would lose its backslashes.
		{"cline", `C:\Users\me\bin\nb-hook.exe`, `"C:\Users\me\bin\nb-hook.exe"`},
	} {
		a := Agents[c.agent]
		got := a.quote(c.path)
		if got != c.want {
			t.Errorf("%s: quote(%s) = %s, want %s", c.agent, c.path, got, c.want)
		}
		if !testSpec.owns(got + " --agent " + c.agent) {
			t.Errorf("%s: %s is not seen as nb-hook's", c.agent, got)
		}
	}
}

// TestCopilotWindows: Copilot CLI runs a hook's "powershell" command on
// Windows, its "bash" elsewhere; install writes both there.
func TestCopilotWindows(t *testing.T) {
	defer func(w bool) { onWindows = w }(onWindows)
	onWindows = true
	out := string(testSpec.fileContent(Agents["copilot"], testSpec.Entries(Agents["copilot"], `C:\My Tools\nb-hook.exe`)))
	for _, want := range []string{`"powershell": "& 'C:\\My Tools\\nb-hook.exe' --agent copilot`, `"bash": "\"C:\\My Tools\\nb-hook.exe\" --agent copilot`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
}

// wrongTypes are documents with a value of the wrong type at each level an
// edit walks through (issue 14: an unchecked type assertion panicked).
var wrongTypes = []string{
	`{"hooks":{"Stop":[{"hooks":["echo hi"]}]}}`,
	`{"hooks":{"Stop":[{"hooks":[null, 1, true, [], {"command": 7}]}]}}`,
	`{"hooks":{"Stop":[{"hooks":"echo hi"}]}}`,
	`{"hooks":{"Stop":["echo hi", 1, null]}}`,
	`{"hooks":{"Stop":{"hooks":[]}}}`,
	`{"hooks":{"Stop":"echo hi"}}`,
	`{"hooks":[]}`,
	`{"hooks":"x"}`,
	`{"hooks":null}`,
	`{"version":"one","hooks":{"stop":[{"command":["x"]}]}}`,
	`{"hookwire-nb-hook":[1,2]}`,
}

func TestEditWrongTypesNeverPanics(t *testing.T) {
	for _, doc := range wrongTypes {
		for name, a := range Agents {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s %s: panic %v", name, doc, r)
					}
				}()
				testSpec.Install(a, []byte(doc), "/x/nb-hook")
				testSpec.Uninstall(a, []byte(doc))
			}()
		}
	}
}

// FuzzInstall edits arbitrary settings documents: never a panic, and where
// the document was one the agent reads, the result is one it reads too, a
// second install changes nothing, and install then uninstall gives back the
// document byte for byte. Two documents are the exception, which come back
// as the same settings but not the same bytes: one that held an empty
// "hooks" object or an empty list of an event's hooks (uninstall cannot tell
// it from the ones install added, and removes it), and a Cursor file with a
// "version" and no "hooks" (install adds "version": 1 with the "hooks" it
// adds, and uninstall removes both).
func FuzzInstall(f *testing.F) {
	for _, doc := range wrongTypes {
		f.Add(doc, uint8(0))
	}
	f.Add("{\n  // mine\n  \"theme\": \"dark\"\n}\n", uint8(2))
	f.Add(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"g.sh"}]}]}}`, uint8(0))
	f.Add(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"g.sh"}]}]}}`, uint8(4))
	f.Add(`{"version":1,"hooks":{"stop":[{"command":"x"}]}}`, uint8(4))
	f.Add("{\"a\": 1}", uint8(4))
	f.Add("{}", uint8(0))
	f.Add("\xEF\xBB\xBF{\n\t\"a\": [1, 2] // two\n}", uint8(1))
	f.Add("", uint8(1))
	f.Add("{\"a\": [1,\n 2], \"hooks\": {}}", uint8(3))
	names := []string{"claude", "codex", "gemini", "antigravity", "cursor", "copilot"}
	f.Fuzz(func(t *testing.T, doc string, which uint8) {
		a := Agents[names[int(which)%len(names)]]
		installed, err := testSpec.Install(a, []byte(doc), "/x/nb-hook")
		_, uerr := testSpec.Uninstall(a, []byte(doc))
		if err != nil || a.Shape == agent.File {
			return
		}
		if uerr != nil {
			t.Fatalf("install took what uninstall refused: %v", uerr)
		}
		if _, err := parseDoc(installed, a.Strict); err != nil {
			t.Fatalf("install wrote what the agent cannot read: %v\n%s", err, installed)
		}
		again, err := testSpec.Install(a, installed, "/x/nb-hook")
		if err != nil || string(again) != string(installed) {
			t.Fatalf("a second install changed the file (%v):\n%s\n---\n%s", err, installed, again)
		}
		if strings.Contains(doc, "nb-hook") || strings.TrimSpace(strings.TrimPrefix(doc, "\xEF\xBB\xBF")) == "" {
			return // hooks of ours already there go; an empty file becomes {}
		}
		restored, err := testSpec.Uninstall(a, installed)
		if err != nil {
			t.Fatal(err)
		}
		if string(restored) == doc {
			return
		}
		if !byteExact(a, []byte(doc)) && reflect.DeepEqual(settingsValue(t, []byte(doc)), settingsValue(t, restored)) {
			return // the exceptions above: the same settings
		}
		t.Fatalf("install then uninstall:\n%q\nbecame\n%q", doc, restored)
	})
}

// byteExact reports whether install then uninstall must give back doc's
// bytes: not where it held an empty "hooks" object or event list, nor in a
// Cursor file with a version and no hooks.
func byteExact(a *Agent, doc []byte) bool {
	d, err := parseDoc(doc, false)
	if err != nil {
		return true
	}
	root := d.root.Value.(*hujson.Object)
	h := member(root, "hooks")
	if h == nil {
		return !(a.Shape == agent.Flat && member(root, "version") != nil)
	}
	hooks, ok := h.Value.(*hujson.Object)
	if !ok {
		return true
	}
	if len(hooks.Members) == 0 {
		return false
	}
	for i := range hooks.Members {
		if l, ok := hooks.Members[i].Value.Value.(*hujson.Array); ok && len(l.Elements) == 0 {
			return false
		}
	}
	return true
}

// settingsValue is a document as the agent reads it: an event with an empty
// list of hooks is no event, and an empty hooks object none.
func settingsValue(t *testing.T, doc []byte) map[string]any {
	d, err := parseDoc(doc, false)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := value(&d.root).(map[string]any)
	h, _ := m["hooks"].(map[string]any)
	for k, v := range h {
		if l, ok := v.([]any); ok && len(l) == 0 {
			delete(h, k)
		}
	}
	if h != nil && len(h) == 0 {
		delete(m, "hooks")
	}
	return m
}
