package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/state"
)

// A turn end whose answer the agent writes after the hook fires (Copilot CLI
// writes its events file 100–300 ms after agentStop) is not waited for in
// the hook: the runtime hands it to a finisher (finisher.go), which waits
// for the answer off the agent's path and then runs the binary's handler on
// the payload, as the hook would have, with the answer found.
//
// The session's later events must not overtake it on the surface (a "run
// completed" after "session ended"), nor wait for it: while its finisher
// waits, each one is queued behind it, in order, and the finisher sends them
// after it. The queue is a file of the binary's state directory
// (<session>.later), changed only under its lock, which also says how far
// the finisher has got, so that nothing is sent twice:
//
//   - a hook of the session appends its own payload, while the finisher has
//     at least queueMargin of its deadline left, and exits at once;
//   - an event whose reply may carry a decision (a permission, a tool about
//     to run) cannot wait: it takes the queue over and sends what is queued
//     first, here, then itself; the finisher then finds nothing to send;
//   - so does any event that finds the finisher past its margin (it died,
//     or is about to be ended by its watchdog).
//
// The finisher holds the lock while it sends, and removes the file when
// nothing is left: a hook that finds no file has nobody to wait for. No
// process outlives its bound: the finisher's deadline is the hook's.
//
// It serves every binary that shows an answer (not Binary.NoAnswers:
// pulse-claude has its own finisher, for the totals).

// Bounds of the hand-over.
const (
	// laterWait bounds a finisher's wait for the answer: it is not on the
	// agent's path, but what is queued behind it waits too.
	laterWait = time.Second
	// queueMargin is the least of its deadline a finisher must have left
	// for an event to be queued behind it: time to send it.
	queueMargin = time.Second
	// laterLock bounds the wait for the queue's lock (held while a
	// finisher sends: a few milliseconds).
	laterLock = time.Second
)

// envLater names the queue a finisher drains (beside envFinisher).
const envLater = "HOOKWIRE_LATER"

// queue is a session's <session>.later file.
type queue struct {
	Token string `json:"token"`
	PID   int    `json:"pid"`
	// Deadline is the finisher's, in Unix milliseconds.
	Deadline int64 `json:"deadline"`
	// Agent, Positional and Transcript are the head turn end's, for the
	// finisher's wait: its --agent, its positional arguments (the event's
	// name, for agents whose payload has none) and its transcript.
	Agent      string   `json:"agent"`
	Positional []string `json:"positional,omitempty"`
	Transcript string   `json:"transcript"`
	// Sent counts the entries sent.
	Sent    int     `json:"sent"`
	Entries []entry `json:"entries"`
}

// entry is one hook's invocation: its command line's arguments and its
// payload, and what
// the hook knew of its process that a detached finisher cannot: its parent
// (the agent, or the agent's shell) and the variables of Binary.Origin.
type entry struct {
	Args    []string          `json:"args"`
	Payload []byte            `json:"payload"`
	PPID    int               `json:"ppid"`
	Env     map[string]string `json:"env,omitempty"`
}

// entry is this hook's invocation, to be sent by a finisher.
func (inv *Invocation) entry() entry {
	_, ppid := agent.HookProcess()
	e := entry{Args: inv.args, Payload: inv.Stdin().Data, PPID: ppid}
	if inv.bin.Origin != nil {
		e.Env = inv.bin.Origin(inv.Getenv)
	}
	return e
}

// handedOver unwinds a hook whose event a finisher sends (Run recovers it).
type handedOver struct{}

// later decides, for an event just parsed, whether a finisher sends it; if
// so it does not return (handedOver). Otherwise, when the event is a turn
// end whose answer is still pending, it returns it parsed again after
// waiting for the answer here, as before finishers existed.
func (inv *Invocation) later(ev agent.Event, agentFlag string, args []string) agent.Event {
	if inv.bin.NoAnswers || inv.dryRun || inv.replaying || ev.Session == "" || inv.finisher != "" {
		return inv.settle(ev, agentFlag, args)
	}
	name := state.Key(ev.Session) + ".later"
	if !ev.AnswerPending {
		// The common case: no queue, nothing pending, one stat.
		if _, err := os.Lstat(filepath.Join(state.Root(os.Getenv), inv.bin.Name, name)); err != nil {
			return ev
		}
	}
	store, err := state.Open(os.Getenv, inv.bin.Name)
	if err != nil {
		inv.Notef("state: %v: the turn end waits here for its answer", err)
		return inv.settle(ev, agentFlag, args)
	}
	ctx, cancel := context.WithTimeout(inv.Context(), laterLock)
	release, err := store.Lock(ctx, name)
	cancel()
	if err != nil {
		inv.Notef("%v: sent here", err)
		return inv.settle(ev, agentFlag, args)
	}
	defer release()
	in := inv.Stdin()
	inv.behindQueue(store, name, ev, in.Truncated)
	if !ev.AnswerPending {
		return ev
	}
	if !inv.CanFinishLater() || in.Truncated {
		return inv.settle(ev, agentFlag, args)
	}
	return inv.finishLater(store, name, ev, agentFlag, args)
}

// behindQueue deals with the session's queue, under its lock: the event
// joins it, if it can wait behind the turn end being finished (it is then
// handed over), else what is queued is sent here, first; a queue all sent
// is removed.
func (inv *Invocation) behindQueue(store *state.Store, name string, ev agent.Event, truncated bool) {
	q := readQueue(store, name)
	if q == nil {
		return
	}
	if q.Sent >= len(q.Entries) {
		store.Remove(name)
		return
	}
	if time.Now().Before(time.UnixMilli(q.Deadline).Add(-queueMargin)) && queueable(ev) && !truncated {
		behind := *q
		behind.Entries = append(slices.Clone(q.Entries), inv.entry())
		if err := writeQueue(store, name, &behind); err == nil {
			inv.Notef("queued behind the turn end that a finisher%s sends: sent after it", pidNote(q.PID))
			inv.handOver(ev, q.PID)
		}
	}
	// Sent here, after what is queued.
	store.Remove(name)
	inv.Notef("the turn end's finisher%s has not sent %d event(s): sent here, first", pidNote(q.PID), len(q.Entries)-q.Sent)
	for _, e := range q.Entries[q.Sent:] {
		inv.replay(e, false)
	}
}

// finishLater starts a finisher that sends the turn end once its answer is
// written, and hands the event over; if it cannot, the turn end waits here.
func (inv *Invocation) finishLater(store *state.Store, name string, ev agent.Event, agentFlag string, args []string) agent.Event {
	token := fmt.Sprintf("later-%d-%d", os.Getpid(), time.Now().UnixNano())
	deadline, _ := inv.Context().Deadline()
	q := &queue{Token: token, Deadline: deadline.Add(reserve).UnixMilli(), Agent: string(ev.Agent),
		Positional: args, Transcript: ev.Transcript, Entries: []entry{inv.entry()}}
	if err := writeQueue(store, name, q); err != nil {
		inv.Notef("state: %v: the turn end waits here for its answer", err)
		return inv.settle(ev, agentFlag, args)
	}
	pid, err := inv.startFinisher(token, store.Dir(), envLater+"="+name)
	if err != nil {
		store.Remove(name)
		inv.Notef("finisher: %v: the turn end waits here for its answer", err)
		return inv.settle(ev, agentFlag, args)
	}
	// The finisher takes the lock only once it has waited: the pid goes in
	// now, for the log lines of what is queued behind it.
	q.PID = pid
	writeQueue(store, name, q)
	inv.Notef("the answer is not in the transcript yet: a finisher%s sends the turn end once it is", pidNote(pid))
	inv.handOver(ev, pid)
	return ev
}

// settle waits here for a turn end's pending answer, as long as the agent
// would before finishers: the event is sent by this hook.
func (inv *Invocation) settle(ev agent.Event, agentFlag string, args []string) agent.Event {
	if !ev.AnswerPending || inv.replaying {
		return ev
	}
	ev = inv.parse(agentFlag, args, agent.CopilotSettle)
	if ev.AnswerPending {
		inv.Notef("transcript: the answer was not written within %v: the turn end goes without it", agent.CopilotSettle)
	}
	return ev
}

// queueable says an event can wait behind a turn end: its reply decides
// nothing. A permission request or a tool about to run may be answered with
// a decision, which only this hook can print.
func queueable(ev agent.Event) bool {
	switch ev.Kind {
	case agent.Permission, agent.ToolStart:
		return false
	}
	return !strings.EqualFold(ev.Name, "PermissionRequest")
}

// handOver ends a hook whose event a finisher sends: the neutral reply the
// agent expects, if any, and nothing else.
func (inv *Invocation) handOver(ev agent.Event, pid int) {
	if inv.bin.Neutral != nil {
		if r := inv.bin.Neutral(ev); r != "" {
			inv.Reply([]byte(r + "\n"))
		}
	}
	inv.mu.Lock()
	inv.rec.FinisherPID = pid
	inv.mu.Unlock()
	panic(handedOver{})
}

// drain is a finisher's work for a queue: wait for the head turn end's
// answer (not holding the lock, so that later hooks can queue behind it),
// then send every entry in order, under the lock, until none is left.
func (inv *Invocation) drain(name string) {
	inv.quiet = true
	store, err := state.Open(os.Getenv, inv.bin.Name)
	if err != nil {
		inv.Notef("finisher: state: %v: nothing sent", err)
		return
	}
	q := readQueue(store, name)
	if q == nil || q.Token != inv.finisher {
		inv.Skip("finisher: a later hook of the session came first: nothing sent")
		return
	}
	until := time.Now().Add(laterWait)
	if dl, ok := inv.Context().Deadline(); ok && dl.Add(-queueMargin).Before(until) {
		until = dl.Add(-queueMargin)
	}
	for head := q.Entries[0]; ; time.Sleep(20 * time.Millisecond) {
		ev := agent.Parse(agent.Input{Agent: q.Agent, Payload: head.Payload, Args: q.Positional, Transcripts: true,
			Getenv: inv.Getenv}) // a transcript found from the session (Kimi Code's) needs it
		if !ev.AnswerPending {
			break
		}
		if now := readQueue(store, name); now == nil || now.Token != inv.finisher {
			break // taken over: said below
		}
		if time.Now().After(until) {
			inv.Notef("transcript: the answer was not written within %v: the turn end goes without it", laterWait)
			break
		}
	}
	for first := true; ; first = false {
		ctx, cancel := context.WithTimeout(inv.Context(), laterLock)
		release, err := store.Lock(ctx, name)
		cancel()
		if err != nil {
			inv.Notef("finisher: %v: %s", err, "not sent")
			return
		}
		q := readQueue(store, name)
		if q == nil || q.Token != inv.finisher {
			release()
			if first {
				inv.Skip("finisher: a later hook of the session sent it first: nothing sent")
			}
			return
		}
		if q.Sent >= len(q.Entries) {
			store.Remove(name)
			release()
			return
		}
		inv.replay(q.Entries[q.Sent], true)
		q.Sent++
		if err := writeQueue(store, name, q); err != nil {
			store.Remove(name) // better lost than sent again
		}
		release()
	}
}

// replay runs the binary's handler on a queued entry, in this process, as a
// hook of its own would: its own debug log line, this process's deadline,
// its reply to nobody (the agent had a neutral one).
func (inv *Invocation) replay(e entry, finisher bool) {
	sub := &Invocation{
		bin:       inv.bin,
		start:     time.Now(),
		stdout:    io.Discard,
		stderr:    io.Discard,
		logPath:   inv.logPath,
		replaying: true,
		ctx:       inv.Context(),
		input:     Stdin{Data: e.Payload},
		origin:    &e,
	}
	sub.stdinOnce.Do(func() {})
	sub.rec = record{Binary: inv.bin.Name, Version: inv.rec.Version, Finisher: finisher}
	defer func() {
		sub.recovered(recover())
		sub.finish()
	}()
	sub.run(e.Args)
}

func readQueue(store *state.Store, name string) *queue {
	b, err := store.Read(name)
	if err != nil || len(b) == 0 {
		return nil
	}
	var q queue
	if json.Unmarshal(b, &q) != nil || len(q.Entries) == 0 {
		return nil
	}
	return &q
}

func writeQueue(store *state.Store, name string, q *queue) error {
	b, err := json.Marshal(q)
	if err != nil {
		return err
	}
	return store.Write(name, b)
}

// errLater is how a finisher's queue name is refused: it must be one file
// of the state directory.
var errLater = errors.New("not a queue name")

// laterName reads a finisher's queue name from its environment, and clears
// the variable.
func laterName() (string, error) {
	v, ok := os.LookupEnv(envLater)
	if !ok {
		return "", nil
	}
	os.Unsetenv(envLater)
	if !strings.HasSuffix(v, ".later") || strings.ContainsAny(v, `/\`) || strings.HasPrefix(v, ".") {
		return "", errLater
	}
	return v, nil
}

// pidNote names a finisher's pid, when it is known (a combined process
// starts its one finisher once every surface is done).
func pidNote(pid int) string {
	if pid == 0 {
		return ""
	}
	return fmt.Sprintf(" (pid %d)", pid)
}
