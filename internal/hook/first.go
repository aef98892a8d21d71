package hook

import (
	"os"
	"slices"
	"strings"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/warm"
)

// Release, set by a warm worker (internal/combined's warm_linux.go), lets
// the agent go before the surfaces are told: the client the agent ran exits
// 0, and the worker delivers after it. A combined hook calls it, having
// written the reply, only for an event no surface decides (answerFirst),
// and only once it holds its session's order (inOrder).
var Release func()

// Renew forgets what the process looked up once for its event (the relay
// directory) and what a warm worker set for it (Release, Exiting, Warm):
// the worker calls it between the events it serves, each of which is a new
// process as far as its hook can tell.
func Renew() {
	relayDir = lookUpRelay()
	Release, Exiting, Warm = nil, nil, false
}

// Exiting, set by a warm worker, is called when the watchdog ends the
// process at the hook's hard deadline, before it exits: the worker starts
// its successor, as it would have once the hook was done.
var Exiting func()

// orderStore is the state directory's corner whose locks keep a session's
// events in order on the surfaces while workers deliver them after letting
// the agent go: the workers' own, which they tidy.
const orderStore = warm.Store

// inOrder waits until the session's earlier events are delivered, and holds
// its place until release is called: an event whose agent was let go is
// still being delivered when the agent's next event comes, which must not
// overtake it on a surface. Events of other sessions do not wait. It only
// serves a warm worker's hook (Release set); it gives up waiting at the
// hook's deadline, when the event is delivered anyway.
func (inv *Invocation) inOrder(ev agent.Event) (release func()) {
	if Release == nil || ev.Session == "" || inv.dryRun {
		return func() {}
	}
	store, err := state.Open(os.Getenv, orderStore)
	if err != nil {
		inv.Notef("order: %v", err)
		return func() {}
	}
	release, err = store.Lock(inv.Context(), state.Key(ev.Session)+".order")
	if err != nil {
		inv.Notef("order: %v: delivered without waiting for the session's earlier event", err)
		return func() {}
	}
	return release
}

// answerFirst writes the reply and lets the agent go (Release) before the
// surfaces are told, when none of them can decide the event: its reply is
// then what nb-hook prints for every such event (Binary.Neutral), or
// nothing. What the surfaces print after is not the agent's any more.
func (inv *Invocation) answerFirst(bins []*Binary, ev agent.Event, args []string) bool {
	if Release == nil || inv.dryRun || !decidesNothing(ev) || !plainArgs(args) {
		return false
	}
	for _, b := range bins {
		if b.Decides != nil && b.Decides(ev) {
			return false
		}
	}
	for _, b := range bins {
		if b.Neutral != nil {
			if r := b.Neutral(ev); r != "" {
				inv.firstReply = []byte(r + "\n")
				inv.write(inv.firstReply)
			}
			break
		}
	}
	inv.outClosed.Store(true)
	Release()
	inv.Notef("warm: the agent was let go before the surfaces were told (its reply decides nothing)")
	return true
}

// quickParse reads the event as Payload does, but not the transcripts an
// event's answer or totals are in: what answerFirst and inOrder need is in
// the payload (its kind, its session), and the agent is let go sooner.
func (inv *Invocation) quickParse(agentFlag string, args []string) agent.Event {
	in := inv.Stdin()
	return agent.Parse(agent.Input{Agent: agentFlag, Payload: in.Data, Truncated: in.Truncated, Args: args,
		Getenv: os.Getenv, Getwd: os.Getwd, Script: inv.script, Terminal: controllingTerminal})
}

// decidesNothing rules out what no surface's Decides may be trusted with:
// a permission or a review (whose answer is a decision by nature), an event
// this suite does not map, a script's, or one named PermissionRequest.
func decidesNothing(ev agent.Event) bool {
	switch ev.Kind {
	case agent.Unknown, agent.Permission, agent.Review:
		return false
	}
	return !ev.Script && !strings.EqualFold(ev.Name, "PermissionRequest")
}

// plainArgs reports a hook line with no flag but --agent: a flag a surface
// reads (nb-hook's --ask, --statusline) may change what it prints.
func plainArgs(args []string) bool {
	return !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "-") && a != "--agent" && !strings.HasPrefix(a, "--agent=") && a != "-"
	})
}
