package vpet

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/testkit/afunix"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

func TestRemote(t *testing.T) {
	afunix.Need(t)
	dir := t.TempDir()
	socket := filepath.Join(dir, "notify.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.WriteFile(filepath.Join(dir, TokenFileName), []byte("desk-token\n"), 0o600)
	env := map[string]string{EnvSocket: socket, "XDG_STATE_HOME": dir}
	carry := Remote(func(k string) string { return env[k] })
	const ok = `{"v":1,"source":"claude-code","session_key":"k","event":"run.started","ts":1.5,"transport":{"ppid":42,"cwd":"/w","tty":"/dev/pts/1"},"payload":{"title":"run started","agent_name":"Claude Code"}}`
	for _, c := range []struct {
		name, body, want string // want "" for refused
	}{
		{"named and stripped", ok,
			`{"v":1,"source":"claude-code","session_key":"devbox.k","event":"run.started","ts":1.500,"transport":{"ppid":0,"cwd":"/w"},"payload":{"title":"run started","agent_name":"Claude Code on devbox"}}`},
		{"without agent_name", `{"v":1,"source":"gemini-cli","session_key":"k","event":"tool.started","ts":2,"transport":{"ppid":1},"payload":{"title":"tool started","tool_name":"Bash"}}`,
			`{"v":1,"source":"gemini-cli","session_key":"devbox.k","event":"tool.started","ts":2.000,"transport":{"ppid":0},"payload":{"title":"tool started","tool_name":"Bash"}}`},
		{"a key off the whitelist", strings.Replace(ok, `"title"`, `"socket":"/tmp/x","title"`, 1), ""},
		{"a top-level key off it", strings.Replace(ok, `"v":1`, `"v":1,"token":"t"`, 1), ""},
		{"a transport key off it", strings.Replace(ok, `"ppid":42`, `"ppid":42,"pid":1`, 1), ""},
		{"v 2", strings.Replace(ok, `"v":1`, `"v":2`, 1), ""},
		{"unknown event", strings.Replace(ok, `run.started`, `run.await`, 1), ""},
		{"source a path", strings.Replace(ok, `claude-code`, `/tmp/x`, 1), ""},
		{"no session key", strings.Replace(ok, `"k"`, `""`, 1), ""},
		{"long title", strings.Replace(ok, `"title":"run started"`, `"title":"`+strings.Repeat("x", 41)+`"`, 1), ""},
		{"long prompt", strings.Replace(ok, `"title":"run started"`, `"title":"t","prompt":"`+strings.Repeat("x", 600)+`"`, 1), ""},
		{"negative time", strings.Replace(ok, `"ts":1.5`, `"ts":-1`, 1), ""},
		{"a string for a number", strings.Replace(ok, `"ts":1.5`, `"ts":"1"`, 1), ""},
		{"not JSON", `run.started`, ""},
		{"two envelopes", ok + ok, ""},
		{"too big", strings.Replace(ok, `"cwd":"/w"`, `"cwd":"`+strings.Repeat("x", MaxRemoteBody)+`"`, 1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := carry("devbox", remote.Delivery{Body: []byte(c.body)})
			if c.want == "" {
				if err == nil {
					t.Fatalf("carried %s, want refused", got.Request.Describe())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := got.Request.(httpsend.Request)
			if string(r.Body) != c.want || r.Socket != socket || strings.Join(r.Header["Authorization"], ",") != "Bearer desk-token" {
				t.Errorf("got %s to %s (%s), want %s with the desktop's token", r.Body, r.Socket, strings.Join(r.Header["Authorization"], ","), c.want)
			}
		})
	}
	if _, err := carry("devbox", remote.Delivery{Ask: 1, Body: []byte(ok)}); err == nil {
		t.Error("an approval: carried")
	}
	env[EnvEvents] = "-run.*"
	if _, err := carry("devbox", remote.Delivery{Body: []byte(ok)}); !errors.Is(err, remote.ErrSkip) {
		t.Errorf("switched off here: %v, want a skip", err)
	}
}
