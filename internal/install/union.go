package install

import (
	"slices"
	"time"
)

// Hooks reports whether the spec installs an agent's event (the agent's own
// name for it).
func (s Spec) Hooks(agent, event string) bool {
	return slices.Contains(s.Events[agent], event)
}

// Union is the spec of one binary that serves the surfaces of specs (a
// combined binary): per agent, every event any of them hooks, in their
// order; the longest timeouts; what any of them replaces or reads.
func Union(binary string, args []string, specs ...Spec) Spec {
	u := Spec{Binary: binary, Args: args, Events: map[string][]string{}}
	for _, s := range specs {
		for agent, events := range s.Events {
			for _, e := range events {
				if !slices.Contains(u.Events[agent], e) {
					u.Events[agent] = append(u.Events[agent], e)
				}
			}
		}
		u.Timeout, u.Approval = max(u.Timeout, s.Timeout), max(u.Approval, s.Approval)
		u.Approvals = union(u.Approvals, s.Approvals)
		u.Legacy = union(u.Legacy, s.Legacy)
		u.Env = union(u.Env, s.Env)
		if u.Test.Stdin == "" && len(u.Test.Args) == 0 {
			u.Test = s.Test
		}
	}
	if u.Timeout == 0 {
		u.Timeout = 10 * time.Second
	}
	return u
}

func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}
