package install

import (
	"slices"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
)

// Hooks reports whether the spec installs an agent's event (the agent's own
// name for it), or may under --approvals (its Ask kinds: a combined line
// that carries the flag serves it too).
func (s Spec) Hooks(agentName, event string) bool {
	a, ok := Agents[agentName]
	return ok && (slices.Contains(s.Events(a), event) || slices.Contains(a.dialect.HookNames(s.Ask), event))
}

// Union is the spec of one binary that serves the surfaces of specs (a
// combined binary), whose hook lines carry args after its path: every kind
// any of them consumes, the longest timeouts, what any of them replaces or
// reads.
func Union(binary string, args []string, specs ...Spec) Spec {
	u := Spec{Binary: binary, Args: args}
	for _, s := range specs {
		u.Kinds = union(u.Kinds, s.Kinds)
		u.Timeout, u.Approval = max(u.Timeout, s.Timeout), max(u.Approval, s.Approval)
		u.Approvals = union(u.Approvals, s.Approvals)
		if at, prev := s.ApprovalAt, u.ApprovalAt; at != nil && prev == nil {
			u.ApprovalAt = at
		} else if at != nil {
			u.ApprovalAt = func(d *agent.Dialect, ev string) bool { return prev(d, ev) || at(d, ev) }
		}
		u.Legacy = union(u.Legacy, s.Legacy)
		u.Ask = union(u.Ask, s.Ask)
		if u.AskFlag == "" {
			u.AskFlag = s.AskFlag
		}
		for _, v := range s.Env {
			if !slices.ContainsFunc(u.Env, func(w Var) bool { return w.Name == v.Name }) {
				u.Env = append(u.Env, v)
			}
		}
		if u.Test.Stdin == "" && len(u.Test.Args) == 0 {
			u.Test = s.Test
		}
	}
	if u.Timeout == 0 {
		u.Timeout = 10 * time.Second
	}
	return u
}

func union[T comparable](a, b []T) []T {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}
