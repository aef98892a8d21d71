package coucou

import (
	"encoding/json"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/text"
)

// ScriptAgent is the pill a script's events go to when no --agent names
// one: a build is not a Claude Code session.
const ScriptAgent = "shell"

// scriptName is the app's (Claude Code's) name for a script's kind (the
// relay's kindNames), "" for a kind not relayed from a script. A permission
// is a notification, not a PermissionRequest: nobody would read the app's
// answer, and the pill would wait for one.
func scriptName(k agent.Kind) string {
	switch k {
	case agent.Permission:
		return "Notification"
	case agent.Thinking, agent.Review, agent.SubagentStart, agent.SubagentStop:
		return ""
	}
	return kindNames[k]
}

// ScriptPayload is the hook JSON Claude Code would have sent for a script's
// event (the generic dialect: arguments, no payload), or nil for a kind the
// app has no word for. Its texts are a command line (wrap's) or a script's
// message, shown on the notch: credentials in them are redacted (nothing
// here is an approval card, where the person must see exactly what runs).
func ScriptPayload(ev agent.Event) []byte {
	name := scriptName(ev.Kind)
	if name == "" {
		return nil
	}
	p := map[string]any{"hook_event_name": name}
	set := func(k, v string) {
		if v != "" {
			p[k] = v
		}
	}
	say := func(k, v string) { set(k, text.Redact(v)) }
	set("session_id", ev.Session)
	set("cwd", ev.Cwd)
	set("tool_name", ev.Tool)
	if ev.ToolInput != nil {
		p["tool_input"] = ev.ToolInput
	}
	switch ev.Kind {
	case agent.Prompt:
		say("prompt", ev.Prompt)
	case agent.TurnEnd, agent.Interrupted:
		say("last_assistant_message", ev.Message)
	case agent.Error:
		say("error", ev.Error)
		say("last_assistant_message", ev.Error)
	case agent.Permission:
		p["notification_type"] = "permission_prompt"
		say("message", ev.Message)
	default:
		say("message", ev.Message)
	}
	b, _ := json.Marshal(p)
	return b
}
