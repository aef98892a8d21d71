package coucou

import (
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// A script's texts (wrap's command line above all) reach the notch without
// the credentials they hold.
func TestScriptPayloadRedacts(t *testing.T) {
	secret := "hunter2-s3cret"
	for _, ev := range []agent.Event{
		{Kind: agent.Prompt, Session: "s1", Prompt: "deploy --password=" + secret},
		{Kind: agent.TurnEnd, Session: "s1", Message: "curl https://me:" + secret + "@example.test/ done"},
		{Kind: agent.Error, Session: "s1", Error: "exit 3: --password=" + secret},
		{Kind: agent.Attention, Session: "s1", Message: "Authorization: Bearer " + secret},
	} {
		got := string(ScriptPayload(ev))
		if got == "" || strings.Contains(got, secret) {
			t.Errorf("%s: %s", ev.Kind, got)
		}
		if !strings.Contains(got, `"session_id":"s1"`) {
			t.Errorf("%s: the session is gone: %s", ev.Kind, got)
		}
	}
}
