package trailboss

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// Trail Boss keeps the message in its database: credentials are redacted
// before it is clipped.
func TestTrailBossMessageRedacted(t *testing.T) {
	for _, got := range []string{
		PermissionMessage("Bash", json.RawMessage(`{"command":"psql postgres://app:SECRETpw@db/x"}`)),
		StoppedMessage("Set `export OPENAI_API_KEY=SECRETabc` and rerun; the token sk-SECRETabcdef0123456789 works."),
		ErrorMessage(agent.Event{ErrorType: "authentication_failed", Error: "Authorization: Bearer SECRETtok0123456789 rejected"}),
	} {
		if strings.Contains(got, "SECRET") {
			t.Errorf("%q", got)
		}
	}
}
