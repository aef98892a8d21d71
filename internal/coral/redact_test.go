package coral

import (
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// Coral's dashboard can serve the status and summary to a phone: no
// credential from a command or a prompt reaches them.
func TestCoralTextRedacted(t *testing.T) {
	evs := []agent.Event{
		{Kind: agent.ToolStart, Tool: "Bash", ToolInput: []byte(`{"command":"curl -u me:SECRETpw https://me:SECRETpw@x/y"}`)},
		{Kind: agent.ToolStart, Tool: "Bash", ToolInput: []byte(`{"command":"GITHUB_TOKEN=SECRETabc gh pr list"}`)},
		{Kind: agent.Prompt, Prompt: "use the key sk-SECRETabcdef0123456789 to call the API"},
		{Kind: agent.Error, Error: "401 for https://h/?access_token=SECRETxyz"},
	}
	for _, ev := range evs {
		for _, tag := range Tags(ev, "/home/u") {
			if strings.Contains(tag.Text, "SECRET") {
				t.Errorf("%v: %q", ev.Kind, tag.Text)
			}
		}
	}
}
