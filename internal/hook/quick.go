package hook

import "strings"

// Quick is a hook grammar that can take, without kong, the command lines an
// agent's settings hold: nothing, --agent NAME, and positional arguments
// (an event name; the JSON Codex's notify appends). Building kong's model
// of a grammar (its struct tags read, its help interpolated) cost a hook
// about 1M instructions, a third of its own work, on every event; five of
// them in hookwire. Any other command line (another flag, "--", a word kong
// might read as a command, help) is kong's, as it always was.
type Quick interface {
	// QuickArgs sets the grammar's fields from agent (--agent, "" when not
	// given) and positional as kong would have set them, every other flag
	// to its zero value, and returns what handles the event. It returns nil
	// when kong must read the command line after all (a positional word
	// that names one of the grammar's commands).
	QuickArgs(agent string, positional []string) Handler
}

// Handler handles one hook event: a grammar's Run method.
type Handler interface {
	Run(inv *Invocation) error
}

// quick returns the handler of a command line that the grammar takes
// without kong, nil for one kong must read (named: a word in it names a
// command for a person).
func quick(cli any, args []string, named bool) Handler {
	q, ok := cli.(Quick)
	if !ok || named {
		return nil
	}
	agentName, positional, ok := simpleArgs(args)
	if !ok {
		return nil
	}
	return q.QuickArgs(agentName, positional)
}

// simpleArgs reads a command line made of at most one --agent NAME (or
// --agent=NAME) and positional arguments; ok is false for anything else,
// including an empty argument or a value that starts with "-", which kong
// reads in ways of its own.
func simpleArgs(args []string) (agentName string, positional []string, ok bool) {
	seen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "" || seen && strings.HasPrefix(a, "--agent"):
			return "", nil, false
		case a == "--agent":
			if i+1 >= len(args) || args[i+1] == "" || strings.HasPrefix(args[i+1], "-") {
				return "", nil, false
			}
			agentName, seen = args[i+1], true
			i++
		case strings.HasPrefix(a, "--agent="):
			agentName, seen = strings.TrimPrefix(a, "--agent="), true
			if agentName == "" || strings.HasPrefix(agentName, "-") {
				return "", nil, false
			}
		case strings.HasPrefix(a, "-"):
			return "", nil, false
		default:
			positional = append(positional, a)
		}
	}
	return agentName, positional, true
}

// FirstRest splits positional arguments as kong does for a grammar of one
// optional argument and then the rest: the rest is nil when empty.
func FirstRest(positional []string) (first string, rest []string) {
	if len(positional) == 0 {
		return "", nil
	}
	if len(positional) == 1 {
		return positional[0], nil
	}
	return positional[0], positional[1:]
}

// growStack grows the calling goroutine's stack to what a surface's work
// needs, once, while the stack is still shallow. A goroutine starts with a
// small stack that doubles when a call needs more, and each doubling copies
// the stack and adjusts every frame on it: deep in five surfaces'
// deliveries, that was about a tenth of hookwire's instructions
// (runtime.copystack; 2.75M instructions an event, 2.4M with this). One
// frame this large, called first, costs one copy of a frame or two. 12 KiB
// gives a 16 KiB stack, the largest the runtime takes from its per-P cache;
// a single binary showed no difference, so only hookwire's goroutines call it.
//
// The index is an argument, and the byte returned, so that the compiler
// keeps the frame whole (nothing shared is written: goroutines call it
// together).
//
//go:noinline
func growStack(i int) byte {
	var frame [12 << 10]byte
	return frame[i]
}
