package coucou

import (
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

func TestParseDecision(t *testing.T) {
	for in, want := range map[string]Decision{
		"allow\n": Allow, "always": Always, "deny\r\n": Deny, " Allow ": Allow,
		`{"permissionDecision":"allow"}`: Allow, `{"permissionDecision":"always"}`: Always,
		`{"permissionDecision":"deny"}`: Deny, `{"permissionDecision":"ask"}`: Ask,
		`{"permissionDecision":"answer","answers":{}}`: Answer, `{"answers":{"Which one?":"B"}}`: Answer, `{"answers":[["B"]]}`: Answer, `{"ok":true}`: None,
		"": None, "yes": None, "ask": None, `{"permissionDecision":1}`: None, "\x00\xff": None,
	} {
		if got := ParseDecision([]byte(in)); got != want {
			t.Errorf("ParseDecision(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReply: the app's decisions reach each agent in its own words (the
// formats themselves are internal/agent's TestReply); an agent without a
// dialect gets nothing, and a question's answer prints only through
// AnswerReply.
func TestReply(t *testing.T) {
	sugg := []byte(`[ {"type": "addRules"} ]`)
	for _, tc := range []struct {
		agent, event string
		d            Decision
		want         string
	}{
		{"claude", "PermissionRequest", Always, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules"}]}}}`},
		{"claude", "PermissionRequest", Deny, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Coucou"}}}`},
		{"claude", "PermissionRequest", Ask, ""},
		{"claude", "PermissionRequest", Answer, ""},
		{"copilot", "permissionRequest", Deny, `{"behavior":"deny","message":"Denied from Coucou"}`},
		{"copilot", "permissionRequest", Answer, ""},
		{"gemini", "BeforeTool", None, "{}"},
		{"opencode-plugin", "PermissionRequest", Allow, ""},
		{"amp", "Stop", None, ""},
	} {
		if got := Reply(agent.Event{Agent: agent.Agent(tc.agent), Name: tc.event}, tc.d, sugg); got != tc.want {
			t.Errorf("Reply(%q, %q, %q) = %s, want %s", tc.agent, tc.event, tc.d, got, tc.want)
		}
	}
}

func TestTakesDecisions(t *testing.T) {
	for name, want := range map[string]bool{"claude": true, "codex": true, "copilot": true, "muse": true,
		"gemini": false, "antigravity": false, "cursor": false, "amp": false, "hermes": false} {
		if TakesDecisions(agent.Event{Agent: agent.Agent(name)}) != want {
			t.Errorf("TakesDecisions(%q) = %v", name, !want)
		}
	}
	if !TakesDecisions(agent.Event{Agent: "hermes", Raw: []byte(`{"coucou_has_transport":true}`)}) {
		t.Error("hermes with a transport takes decisions")
	}
}

func TestSocketPath(t *testing.T) {
	files := map[string]bool{}
	env := map[string]string{}
	w := Where{Getenv: func(k string) string { return env[k] },
		Exists: func(p string) bool { return files[p] }, UID: 501, TmpDir: "/tmp"}
	mac := map[string]string{"HOME": "/Users/u", "USERNAME": "u"}
	xdg := map[string]string{"XDG_RUNTIME_DIR": "/run/user/501"}
	for _, tc := range []struct {
		goos, sid string
		env       map[string]string
		exists    []string
		want      string
	}{
		{"darwin", "", mac, nil, "/Users/u/Library/Application Support/NotchBuddy/nb.sock"},
		{"darwin", "", mac, []string{"/Users/u/Library/Containers/fr.louisraille.Coucou/Data/nb.sock"}, "/Users/u/Library/Containers/fr.louisraille.Coucou/Data/nb.sock"},
		{"darwin", "", mac, []string{"/Users/u/Library/Containers/fr.louisraille.Coucou/Data/nb.sock", "/Users/u/Library/Application Support/NotchBuddy/nb.sock"}, "/Users/u/Library/Application Support/NotchBuddy/nb.sock"},
		{"windows", "S-1-5-21-1-2-3-1001", mac, nil, `\\.\pipe\coucou-S-1-5-21-1-2-3-1001`},
		{"windows", "", mac, nil, `\\.\pipe\coucou-u`},
		// Linux: the runtime directory's socket, whatever else is there.
		{"linux", "", xdg, nil, "/run/user/501/coucou.sock"},
		{"linux", "", map[string]string{"XDG_RUNTIME_DIR": "/custom/rt"}, nil, "/custom/rt/coucou.sock"},
		{"linux", "", map[string]string{"XDG_RUNTIME_DIR": "/custom/rt"}, []string{"/tmp/coucou-501.sock"}, "/custom/rt/coucou.sock"},
		// No runtime directory (a relative one is none, as the app reads
		// it): the app's own fallback under /run/user.
		{"linux", "", nil, nil, "/run/user/501/coucou.sock"},
		{"linux", "", map[string]string{"XDG_RUNTIME_DIR": "rt"}, nil, "/run/user/501/coucou.sock"},
		{"linux", "", nil, []string{"/run/user/501/coucou.sock", "/tmp/coucou-501.sock"}, "/run/user/501/coucou.sock"},
		// Only an older relay's socket in the temp directory: that one.
		{"linux", "", nil, []string{"/tmp/coucou-501.sock"}, "/tmp/coucou-501.sock"},
	} {
		clear(files)
		for _, f := range tc.exists {
			files[f] = true
		}
		env = tc.env
		w.GOOS, w.SID = tc.goos, tc.sid
		if got := SocketPath(w); got != tc.want {
			t.Errorf("%s %v %v: %s, want %s", tc.goos, tc.env, tc.exists, got, tc.want)
		}
	}
	env = map[string]string{EnvSocket: "/x.sock", "XDG_RUNTIME_DIR": "/run/user/501"}
	if got, why := Looking(w); got != "/x.sock" || why != "from COUCOU_SOCKET" {
		t.Errorf("COUCOU_SOCKET: %s (%s)", got, why)
	}
	w.GOOS, env = "windows", nil
	if got := SocketPath(w); got != `\\.\pipe\coucou-user` {
		t.Errorf("no SID, no USERNAME: %s", got)
	}
}
