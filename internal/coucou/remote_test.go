package coucou

import (
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

func TestRemote(t *testing.T) {
	env := map[string]string{EnvSocket: "/run/desk/coucou.sock"}
	carry := Remote(func(k string) string { return env[k] })
	for _, c := range []struct {
		name string
		d    remote.Delivery
		line string // "" for refused
	}{
		{"session and cwd name the host",
			remote.Delivery{Body: []byte(`{"session_id":"s1","cwd":"/w/app","hook_event_name":"Stop"}`)},
			`{"cwd":"/w/app on devbox","hook_event_name":"Stop","session_id":"devbox.s1"}`},
		{"conversation_id is the session",
			remote.Delivery{Body: []byte(`{"conversation_id":"c1","hook_event_name":"Stop"}`)},
			`{"cwd":"devbox","hook_event_name":"Stop","session_id":"devbox.c1"}`},
		{"valid agent kept, pids dropped",
			remote.Delivery{Body: []byte(`{"session_id":"s","hook_event_name":"PreToolUse","coucou_agent":"codex","vscode_pid":"1","session_pid":"2","wt_session":"w","transcript_path":"/x"}`)},
			`{"coucou_agent":"codex","cwd":"devbox","hook_event_name":"PreToolUse","session_id":"devbox.s"}`},
		{"invalid agent dropped",
			remote.Delivery{Body: []byte(`{"session_id":"s","hook_event_name":"Stop","coucou_agent":"claude"}`)},
			`{"cwd":"devbox","hook_event_name":"Stop","session_id":"devbox.s"}`},
		{"numbers kept exactly",
			remote.Delivery{Body: []byte(`{"session_id":"s","hook_event_name":"Stop","coucou_event_time_us":1735689600000000123}`)},
			`{"coucou_event_time_us":1735689600000000123,"cwd":"devbox","hook_event_name":"Stop","session_id":"devbox.s"}`},
		{"not an object", remote.Delivery{Body: []byte(`["x"]`)}, ""},
		{"two objects", remote.Delivery{Body: []byte(`{"hook_event_name":"Stop"}{"hook_event_name":"Stop"}`)}, ""},
		{"no body", remote.Delivery{}, ""},
		{"no event", remote.Delivery{Body: []byte(`{"session_id":"s"}`)}, ""},
		{"event a path", remote.Delivery{Body: []byte(`{"hook_event_name":"../x"}`)}, ""},
		{"session not a string", remote.Delivery{Body: []byte(`{"hook_event_name":"Stop","session_id":1}`)}, ""},
		{"unknown kind", remote.Delivery{Body: []byte(`{"hook_event_name":"Stop","coucou_kind":"exec"}`)}, ""},
		{"too big", remote.Delivery{Body: []byte(`{"hook_event_name":"Stop","m":"` + strings.Repeat("x", MaxRemoteBody) + `"}`)}, ""},
		{"pulse's fields", remote.Delivery{Event: "idle", Body: []byte(`{"hook_event_name":"Stop"}`)}, ""},
		{"approval of something else", remote.Delivery{Ask: 1, WithinMS: 100, Body: []byte(`{"hook_event_name":"Stop"}`)}, ""},
		{"approval without time", remote.Delivery{Ask: 1, Body: []byte(`{"hook_event_name":"PermissionRequest"}`)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := carry("devbox", c.d)
			if c.line == "" {
				if err == nil {
					t.Fatalf("carried %s, want refused", got.Request.Describe())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := got.Request.(transport.SocketLine)
			if s.Path != env[EnvSocket] || string(s.Line) != c.line {
				t.Errorf("got %s %s, want %s %s", s.Path, s.Line, env[EnvSocket], c.line)
			}
			if !s.ReplyOptional || s.ReplyWithin != ackWithin {
				t.Errorf("a delivery waits for its ack as nb-hook does: %+v", s)
			}
		})
	}
}

// An approval waits for its answer within the hook's remaining time, at
// most this desktop's decision timeout.
func TestRemoteAsk(t *testing.T) {
	env := map[string]string{EnvSocket: "/x.sock"}
	carry := Remote(func(k string) string { return env[k] })
	ask := func(within int64, body string) remote.Carry {
		t.Helper()
		c, err := carry("h", remote.Delivery{Ask: 9, WithinMS: within, Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		if s := c.Request.(transport.SocketLine); !s.ReadReply || s.ReplyOptional {
			t.Fatalf("an approval reads its answer: %+v", s)
		}
		return c
	}
	perm := `{"hook_event_name":"PermissionRequest","session_id":"s"}`
	if c := ask(5000, perm); c.Within != 5*time.Second {
		t.Errorf("within %v, want the hook's 5s", c.Within)
	}
	if c := ask(500_000, perm); c.Within != DefaultDecisionTimeout {
		t.Errorf("within %v, want the decision timeout", c.Within)
	}
	if c := ask(500_000, `{"hook_event_name":"PreToolUse","coucou_kind":"ask_user_question"}`); c.Within != DefaultAskTimeout {
		t.Errorf("a question: within %v, want %v", c.Within, DefaultAskTimeout)
	}
	env[EnvDecisionTimeout] = "30s"
	if c := ask(500_000, perm); c.Within != 30*time.Second {
		t.Errorf("within %v, want this desktop's COUCOU_DECISION_TIMEOUT", c.Within)
	}
}
