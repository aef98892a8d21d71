package vpet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// Credentials in a tool's input or an error never reach the pet: they are
// redacted before the text is clipped (agentica's contract for this sink).
func TestPetTextRedacted(t *testing.T) {
	for _, got := range []string{
		Preview(json.RawMessage(`{"command":"curl -H 'Authorization: Bearer sk-SECRETabcdef0123456789' https://x"}`)),
		Preview(json.RawMessage(`{"command":"git clone https://me:ghp_SECRET0123456789abcdefABCD@github.com/o/r"}`)),
		Preview(json.RawMessage(`{"url":"https://h/cb?access_token=SECRETxyz"}`)),
		Preview(toolEvent(agent.Codex, "shell", `{"command":["mysql","--password=SECRETpw"]}`).ToolInput), // argv
		Preview(json.RawMessage(`{"command":"AWS_SECRET_ACCESS_KEY=SECRETwJalr aws s3 ls"}`)),
		ToolError("fatal: could not read from https://me:SECRETpw@git.example.com/r"),
		RunError("auth", "token ghp_SECRET0123456789abcdefABCD was rejected"),
	} {
		if strings.Contains(strings.ReplaceAll(got, "AWS_SECRET", ""), "SECRET") || !strings.Contains(got, "<redacted>") {
			t.Errorf("%q", got)
		}
	}
	// A long command whose token comes early is redacted, then clipped.
	long := Preview(json.RawMessage(`{"command":"export TOKEN=SECRET` + strings.Repeat("x", 500) + ` && run"}`))
	if strings.Contains(long, "SECRET") {
		t.Errorf("%q", long)
	}
}
