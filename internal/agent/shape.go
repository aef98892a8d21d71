package agent

import "fmt"

// String is how the shape lays out hooks, for people (docs/settings.md's settings
// table, generated from the dialects).
func (s Shape) String() string {
	switch s {
	case Nested:
		return "`hooks.<Event>: [{matcher, hooks: [{type, command, timeout}]}]`"
	case Named:
		return "a named hook of our own (`hookwire-<binary>`): tool events `[{matcher, hooks}]`, the others a flat list"
	case Flat:
		return "`{\"version\": 1, \"hooks\": {<event>: [{command, timeout}]}}`"
	case TopLevel:
		return "`<Event>: [{matcher, hooks: [{type, command, timeout}]}]`, the event names the file's own keys"
	case File:
		return "a file of our own: `{\"version\": 1, \"hooks\": {<event>: [{type, bash, timeoutSec}]}}`"
	case PluginFile:
		return "a plugin of our own (the agent runs no command hooks): it hands each event to the binary as JSON on stdin, one at a time, never waited for, each killed after its timeout"
	case EventFiles:
		return "an executable per event, named after it: a `#!/bin/sh` script of hookwire's with a line per binary, each handed the event's name"
	case NestedFile:
		return "a file of our own: `{\"hooks\": {<Event>: [{matcher, hooks: [{type, command, timeout}]}]}}`"
	case Tables:
		return "TOML: one `[[hooks]]` table per hook, `{event, command, timeout}`, appended at the end of the file"
	}
	return fmt.Sprintf("shape %d", int(s))
}
