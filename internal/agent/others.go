package agent

import (
	"path/filepath"

	"github.com/tidwall/gjson"
)

// aider is Aider: its --notifications-command runs with no payload when the
// model is done and aider waits for input.
var aider = &Dialect{
	Agent:  Aider,
	Title:  "Aider",
	Events: []Name{{"notification", TurnEnd, false}},
	Refine: func(ev *Event, _ gjson.Result) {
		ev.Kind = TurnEnd // every aider notification means "done, your turn"
		if ev.Session == "" && ev.Cwd != "" {
			ev.Session = filepath.Base(ev.Cwd)
		}
	},
}

// muse and hermes are agents whose own plugins run nb-hook with Claude-shaped
// JSON; they read an approval's answer in their own words.
var (
	muse = &Dialect{
		Agent: "muse", Title: "Muse", Events: claude.Events, Refine: refineClaude,
		Tools: claude.Tools, ToolArgs: claude.ToolArgs,
		Reply: func(name string, r Reply) string {
			switch {
			case name != "PermissionRequest":
				return "{}" // it reads a JSON object after every hook
			case r.Decision == Allow || r.Decision == Always:
				return `{"permissionDecision":"allow"}`
			case r.Decision == Deny:
				return `{"permissionDecision":"deny"}`
			}
			return ""
		},
		Approves: func(Event) bool { return true },
	}
	hermes = &Dialect{
		Agent: "hermes", Title: "Hermes", Events: claude.Events, Refine: refineClaude,
		Tools: claude.Tools, ToolArgs: claude.ToolArgs,
		Reply: func(name string, r Reply) string {
			if name != "PermissionRequest" {
				return ""
			}
			switch r.Decision {
			case Allow:
				return `{"choice":"once"}`
			case Always:
				return `{"choice":"always"}`
			case Deny:
				return `{"choice":"deny"}`
			}
			return ""
		},
		// Only when its plugin says it can hear the answer.
		Approves: func(ev Event) bool { return ev.Get("coucou_has_transport").Bool() },
	}
)

// plugin reads an agent without a dialect: its own plugin runs a binary
// with --agent NAME and JSON shaped like Claude Code's, under the field
// names Coucou's relays read for any agent.
var plugin = &Dialect{
	Title: "another agent's plugin", Events: claude.Events, Refine: refineClaude,
	Paths: Paths{
		Session:   []string{"sessionId", "conversationId", "conversation_id"},
		Tool:      []string{"toolName"},
		ToolInput: []string{"toolArgs"},
	},
}

// generic is a shell script or a CI job: no payload, the event and its
// fields as arguments (script.go).
var generic = &Dialect{Agent: Generic, Title: "scripts and CI"}
