package pulse

import (
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

func TestRemote(t *testing.T) {
	getenv := func(k string) string {
		if k == EnvTarget {
			return "desk/top:svc"
		}
		return ""
	}
	carry := Remote(getenv)
	for _, c := range []struct {
		name string
		d    remote.Delivery
		argv string // "" for refused
	}{
		{"token", remote.Delivery{Event: "tool_start", Payload: "opus,1,2,3,4,d63ac083"}, "noctalia msg plugin desk/top:svc all tool_start opus,1,2,3,4,devbox.d63ac083"},
		{"pid dropped", remote.Delivery{Event: "turn_end", Payload: "opus,1,2,3,4,d63ac083,4242"}, "noctalia msg plugin desk/top:svc all turn_end opus,1,2,3,4,devbox.d63ac083"},
		{"bare event: the host's slot", remote.Delivery{Event: "idle"}, "noctalia msg plugin desk/top:svc all idle ?,0,0,0,0,devbox"},
		{"script session kept whole", remote.Delivery{Event: "turn_end", Payload: "?,0,0,0,0,github.4711.build"}, "noctalia msg plugin desk/top:svc all turn_end ?,0,0,0,0,devbox.github.4711.build"},
		{"event outside Pulse's", remote.Delivery{Event: "rm"}, ""},
		{"event with an argument", remote.Delivery{Event: "idle --target=x"}, ""},
		{"empty event", remote.Delivery{}, ""},
		{"payload with a space", remote.Delivery{Event: "idle", Payload: "m,1,2,3,4,s x"}, ""},
		{"payload with a slash", remote.Delivery{Event: "idle", Payload: "m,1,2,3,4,/tmp/x.sock"}, ""},
		{"payload short", remote.Delivery{Event: "idle", Payload: "m,1,2,3,s"}, ""},
		{"payload long", remote.Delivery{Event: "idle", Payload: "m,1,2,3,4,s,5,6"}, ""},
		{"figure not a number", remote.Delivery{Event: "idle", Payload: "m,1,x,3,4,s"}, ""},
		{"figure empty", remote.Delivery{Event: "idle", Payload: "m,,2,3,4,s"}, ""},
		{"pid not a number", remote.Delivery{Event: "idle", Payload: "m,1,2,3,4,s,-1"}, ""},
		{"no session", remote.Delivery{Event: "idle", Payload: "m,1,2,3,4,"}, ""},
		{"huge", remote.Delivery{Event: "idle", Payload: "m,1,2,3,4," + strings.Repeat("s", 600)}, ""},
		{"a body", remote.Delivery{Event: "idle", Body: []byte(`{}`)}, ""},
		{"an approval", remote.Delivery{Event: "consent_request", Ask: 3, WithinMS: 100}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := carry("devbox", c.d)
			if c.argv == "" {
				if err == nil {
					t.Fatalf("carried %v, want refused", got.Request.Describe())
				}
				if strings.Contains(err.Error(), "tmp") || strings.Contains(err.Error(), "target") {
					t.Errorf("the reason %q holds the line's content", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := got.Request.Describe(); d != c.argv {
				t.Errorf("argv %q, want %q", d, c.argv)
			}
			if _, ok := got.Request.(transport.Crosser); ok {
				t.Error("the delivery carried here could be handed over again")
			}
		})
	}
	if _, err := carry("", remote.Delivery{Event: "idle"}); err == nil {
		t.Error("no host: carried")
	}
}
