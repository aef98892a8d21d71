package consent

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
)

// pathTools are the tools keyed by the path they touch (consent.py's
// PATH_TOOLS); Bash is keyed by its command.
var pathTools = map[string]string{
	agent.Write: agent.ArgFilePath, agent.Edit: agent.ArgFilePath, agent.NotebookEdit: agent.ArgNotebookPath,
}

// Key is an allowlist key, exactly as consent.py's _key makes it: an exact
// match, never a pattern (`git status` must not allow `git status && rm`).
// Bash is "Bash:<command>", Write and Edit "<tool>:<file_path>",
// NotebookEdit "NotebookEdit:<notebook_path>"; any other tool "<tool>:"
// and its input as sorted JSON, in Python's spelling (pyjson.go).
func Key(tool string, input gjson.Result) string {
	if tool == agent.Bash {
		return "Bash:" + pyStr(input.Get(agent.ArgCommand))
	}
	if field, ok := pathTools[tool]; ok {
		return tool + ":" + pyStr(input.Get(field))
	}
	var b strings.Builder
	b.WriteString(tool)
	b.WriteByte(':')
	pyValue(&b, input, true)
	return b.String()
}

// keyed is what the panel is shown and keyed on for ev: the tool's name and
// its input. An agent's shell and file tools are Claude Code's (Bash,
// Write, Edit, NotebookEdit: the canonical names and arguments), so that
// one allowlist serves every agent; any other tool keeps the agent's own
// name and input, as Claude Code's reach consent.py. ok is false when the
// input is not an object (consent.py then stays out of the way).
func keyed(ev agent.Event) (tool string, key string, input gjson.Result, ok bool) {
	input = gjson.ParseBytes(ev.ToolInput)
	if !input.IsObject() {
		return "", "", input, false
	}
	tool = ev.Tool
	if tool != agent.Bash && pathTools[tool] == "" {
		if ev.AgentTool != "" {
			tool = ev.AgentTool
		}
		if own := ev.Get("tool_input"); own.IsObject() {
			// The input as the agent sent it: Claude Code's, byte for
			// byte what consent.py keys (a canonical name added beside
			// one of the agent's, as SlashCommand's skill, would change
			// the key).
			return tool, Key(tool, own), input, true
		}
	}
	return tool, Key(tool, input), input, true
}
