package coral

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transcript"
	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// Token usage goes to POST /api/sessions/live/<name>/token-usage, which
// inserts one row per post in Coral's token_usage table, and Coral shows a
// session's usage as the sum of its rows (GetSessionUsage): so a post is the
// burn since the session's last post, never a total. The row's key is
// (session_id, recorded_at), recorded_at being Coral's clock when the post
// arrives, to the microsecond, and a row with a key already there is
// dropped without a word (INSERT OR IGNORE, and still {"ok":true}): the
// posts of one session are made one at a time, under its lock, so that no
// two arrive together. See docs/reference/trailboss-vpet-coral.md.

// countsItself reports whether Coral records the tokens of the agent's
// session by itself: its TokenPoller reads the transcript of each live
// claude, codex and pi session it launched, every 30 s, one row per API
// call. A claude session's is ~/.claude/projects/*/<its uuid>.jsonl (Coral
// launches `claude --session-id <uuid>`), so Claude Code's own session counts
// there only while it is that one: after a /clear, or in a session Coral
// resumed (`--resume <id>`), nobody else counts it. Codex's rollout and Pi's
// session file are matched more loosely (by name, else by directory and
// time), so a codex or pi session's agent is taken as counted. Any agent of
// another kind in such a session, or in a gemini, agy or shell session, is
// counted by nobody else.
func countsItself(s Session, ev agent.Event) bool {
	switch strings.ToLower(s.Type) {
	case "claude":
		return ev.Agent == agent.Claude && strings.EqualFold(ev.Session, s.UUID)
	case "codex":
		return ev.Agent == agent.Codex
	case "pi":
		return ev.Agent == "pi"
	}
	return false
}

// usageBody is the route's JSON. cost_usd and num_turns are left out:
// hookwire knows no prices, and Coral counts a session's rows as its turns.
type usageBody struct {
	SessionID  string `json:"session_id"`
	In         int64  `json:"input_tokens"`
	Out        int64  `json:"output_tokens"`
	CacheRead  int64  `json:"cache_read_tokens"`
	CacheWrite int64  `json:"cache_write_tokens"`
}

// PostUsage is the request that records burn u for the session.
func PostUsage(base, cwd string, s Session, u transcript.Usage) transport.Request {
	body, _ := json.Marshal(usageBody{SessionID: s.UUID, In: u.In, Out: u.Out, CacheRead: u.CacheRead, CacheWrite: u.CacheCreate})
	return transport.Within(httpsend.Request{
		URL:      base + "/api/sessions/live/" + url.PathEscape(agentName(cwd, s)) + "/token-usage",
		Header:   httpsend.Header{"Content-Type": {"application/json"}},
		Body:     body,
		MaxReply: 4 << 10,
	}, apiBudget)
}

// Bounds of a usage post's work in the hook.
const (
	usageLock = time.Second     // another hook of the session posting
	usageScan = 2 * time.Second // reading the transcript whole
)

// postUsage posts, at a turn end and at the session's end, the tokens the
// session burned since its last post: the totals Pulse shows (the
// transcript read as Pulse reads it, subagents included, each message once)
// less what was posted. The mark moves before the post is sent: a Coral
// that is down loses the posts of that time, and a post that reached it but
// whose answer did not come back is never sent again. A turn's final
// message that the agent has not written yet when its turn end fires counts
// in the next post; after the session's end Coral's sum is the session's
// burn. The mark and the scan are kept per Coral session and agent session
// (a /clear starts another), past the session's end (a resumed session goes
// on from them), until the state directory's tidying.
func postUsage(inv *hook.Invocation, s Session, ev agent.Event) {
	if ev.Kind != agent.TurnEnd && ev.Kind != agent.SessionEnd {
		return
	}
	if countsItself(s, ev) {
		inv.Notef("Coral counts the tokens of its %s session itself, from the transcript: none posted", s.Type)
		return
	}
	path, format := agent.TranscriptOf(ev, inv.Getenv)
	if path == "" && !format.Carried() {
		inv.Notef("no transcript of this session's usage: no tokens posted")
		return
	}
	open := state.Open
	if inv.DryRun() {
		open = state.OpenReadOnly
	}
	store, err := open(inv.Getenv, "coral-pulse")
	if err != nil {
		inv.Notef("state: %v: no tokens posted (what was posted before is not known)", err)
		return
	}
	name := "usage-" + state.Key(s.UUID+"/"+ev.Session)
	ctx, cancel := context.WithTimeout(inv.Context(), usageLock)
	release, err := store.Lock(ctx, name)
	cancel()
	if err != nil {
		inv.Notef("state: %v: no tokens posted this time", err)
		return
	}
	defer release() // over the post: one at a time per session

	burn, ok := scanBurn(inv, store, name, ev, path, format)
	if !ok {
		return
	}
	posted := readMark(store, name)
	delta := transcript.Usage{In: burn.In - posted.In, Out: burn.Out - posted.Out,
		CacheCreate: burn.CacheCreate - posted.CacheCreate, CacheRead: burn.CacheRead - posted.CacheRead}.Max(transcript.Usage{})
	if delta == (transcript.Usage{}) {
		inv.Notef("no tokens burned since the last post")
		return
	}
	if err := store.Write(name, []byte(fmt.Sprintf("%d %d %d %d\n", max(burn.In, posted.In), max(burn.Out, posted.Out),
		max(burn.CacheCreate, posted.CacheCreate), max(burn.CacheRead, posted.CacheRead)))); err != nil {
		inv.Notef("state: %v: no tokens posted (they would be posted again)", err)
		return
	}
	base, from := Locate(inv.Context(), inv.Getenv, s)
	if from != "" {
		inv.Notef("Coral's server %s, from %s", base, from)
	}
	inv.Send(PostUsage(base, ev.Cwd, s, delta))
}

// scanBurn is the session's lifetime burn, as Pulse counts it, read as
// Pulse reads it: the scan's state, kept beside the mark (name.scan, and the
// counted messages in name.ids), takes in only what the transcript gained
// since the last turn end. A scan cut short by its deadline counts what it
// read and goes on next time. ok is false when nothing could be counted.
func scanBurn(inv *hook.Invocation, store *state.Store, name string, ev agent.Event, path string, format transcript.Format) (transcript.Usage, bool) {
	var s transcript.Session
	if b, err := store.Read(name + ".scan"); err == nil && b != nil {
		if s.UnmarshalBinary(b) != nil {
			s = transcript.Session{} // unreadable: count again from the start
		}
	}
	var set *transcript.IDSet
	if !store.ReadOnly() { // a dry run counts in memory, and saves nothing
		var err error
		if set, err = transcript.OpenIDSet(filepath.Join(store.Dir(), name+".ids"), &s); err != nil {
			inv.Notef("state: %v: no tokens posted", err)
			return transcript.Usage{}, false
		}
	}
	var err error
	if path == "" {
		err = s.Carried(ev.Raw, format, true)
	} else {
		deadline := time.Now().Add(usageScan)
		if dl, ok := inv.Context().Deadline(); ok && dl.Add(-apiBudget).Before(deadline) {
			deadline = dl.Add(-apiBudget)
		}
		var res transcript.Result
		res, err = s.Scan(path, transcript.Options{Format: format, Session: ev.Session, Subagents: true, Deadline: deadline})
		if err == nil && !res.Done {
			inv.Notef("transcript: not read to its end in time: the rest is posted next time")
		}
	}
	if set != nil {
		if cerr := set.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err != nil {
		inv.Notef("usage: %v: no tokens posted", err)
		return transcript.Usage{}, false
	}
	if !store.ReadOnly() {
		b, _ := s.MarshalBinary()
		if err := store.Write(name+".scan", b); err != nil {
			inv.Notef("state: %v: no tokens posted", err)
			return transcript.Usage{}, false
		}
	}
	return s.Burn(), true
}

// readMark is what was posted for the session so far (zeros at first).
func readMark(store *state.Store, name string) (u transcript.Usage) {
	b, err := store.Read(name)
	if err != nil || len(b) == 0 {
		return u
	}
	fmt.Sscanf(string(b), "%d %d %d %d", &u.In, &u.Out, &u.CacheCreate, &u.CacheRead)
	return u
}
