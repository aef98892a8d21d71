package agent

import (
	"strings"
	"sync"
)

// universal resolves a name when the dialect does not know it: a positional
// argument written in another agent's vocabulary (`nb-hook --agent gemini
// PreToolUse`), a canonical kind name (`tool_start`) or a snake_case Claude
// name (`pre_tool_use`). Keys are lower-cased: agents match event names
// case-insensitively (Antigravity does) and so do we, as a last resort. A
// name two dialects share means what the first in registry order says,
// Claude Code's first. It is built on first use: most events are found in
// their dialect's own table, and package init runs in every hook.
var universal = sync.OnceValue(func() map[string]Kind {
	u := map[string]Kind{}
	add := func(name string, k Kind) {
		if _, ok := u[strings.ToLower(name)]; !ok {
			u[strings.ToLower(name)] = k
		}
	}
	for _, n := range claude.Events {
		add(n.Name, n.Kind)
	}
	for _, d := range registry {
		for _, n := range d.Events {
			add(n.Name, n.Kind)
		}
	}
	for _, k := range Kinds {
		add(string(k), k)
	}
	for _, n := range claude.Events {
		add(SnakeCase(n.Name), n.Kind)
	}
	return u
})

// SnakeCase turns an event name such as PreToolUse into pre_tool_use, the
// spelling some agents use (Codex's hook trust keys, snake_case dialects).
func SnakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// kindOf resolves an event name: the dialect's own table, else the universal one.
func kindOf(d *Dialect, name string) Kind {
	if k, ok := d.KindOf(name); ok {
		return k
	}
	return universal()[strings.ToLower(name)]
}

// Lookup resolves an event name in any vocabulary the suite knows (every
// dialect's, the canonical kinds', snake_case Claude names), or Unknown.
func Lookup(name string) Kind { return universal()[strings.ToLower(name)] }

// ArgKind is the kind a hook's positional argument names, for an event
// whose payload names one nobody maps (a newer agent, a mangled name): the
// settings line's argument says what the hook is for. It is Unknown when the
// event has a kind, when the agent's dialect knows the event and made it
// nothing (Gemini's PreCompress before every request), or maps the argument
// to nothing on purpose.
func ArgKind(ev Event, arg string) Kind {
	if ev.Kind != Unknown || arg == "" {
		return Unknown
	}
	if d, ok := For(ev.Agent); ok {
		if _, known := d.KindOf(ev.Name); known {
			return Unknown
		}
		if k, ok := d.KindOf(arg); ok && k == Unknown {
			return Unknown
		}
	}
	return Lookup(arg)
}
