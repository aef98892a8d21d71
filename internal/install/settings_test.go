package install

import (
	"strings"
	"testing"
	"time"
)

var testSpec = Spec{
	Binary:    "nb-hook",
	Timeout:   10 * time.Second,
	Approval:  120 * time.Second,
	Approvals: []string{"PermissionRequest", "permissionRequest"},
	Events: map[string][]string{
		"claude":      {"SessionStart", "PreToolUse", "PermissionRequest", "Stop", "SessionEnd"},
		"gemini":      {"BeforeTool", "AfterAgent"},
		"antigravity": {"PreToolUse", "PreInvocation", "Stop"},
		"codex":       {"PreToolUse", "PermissionRequest"},
		"cursor":      {"preToolUse", "stop"},
		"copilot":     {"preToolUse", "permissionRequest"},
	},
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
	if quote("/a b/nb-hook") != `'/a b/nb-hook'` || words(quote("/it's/x"))[0] != "/it's/x" {
		t.Error("quote")
	}
}
