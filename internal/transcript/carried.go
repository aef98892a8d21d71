package transcript

import (
	"github.com/tidwall/gjson"
)

// Carried reports whether the agent's usage comes in its hooks' payloads,
// not in a file: opencode keeps its messages in a SQLite database, and
// hookwire's plugin hands each assistant message's tokens over with the
// events (Session.Carried counts them).
func (f Format) Carried() bool { return f == Opencode }

// Carried counts the usage records a hook's payload carries, each message
// once however often it comes (the plugin repeats a turn's messages on each
// of its events, and opencode updates a message several times): its latest
// figures, as a transcript's lines are counted. A subagent's messages (those
// that name their own session) count only with subagents.
//
// opencode's plugin hands over, under "messages", the turn's assistant
// messages so far:
//
//	{"id":"msg_…","created":<ms>,"model":"…","sessionID":"ses_…" (a child's),
//	 "tokens":{"input","output","reasoning","cache":{"read","write"}}}
//
// opencode's input excludes the cache reads and writes, and its output the
// reasoning (counted as output here, as for every agent).
func (s *Session) Carried(payload []byte, f Format, subagents bool) error {
	if f != Opencode || !gjson.ValidBytes(payload) {
		return nil
	}
	var err error
	gjson.GetBytes(payload, "messages").ForEach(func(_, m gjson.Result) bool {
		id := m.Get("id").Str
		t := m.Get("tokens")
		main := !m.Get("sessionID").Exists()
		if id == "" || !t.IsObject() || (!main && !subagents) {
			return true
		}
		r := record{
			key: hash64([]byte("opencode"), []byte(id)),
			usage: Usage{
				In: n(t.Get("input")), Out: n(t.Get("output")) + n(t.Get("reasoning")),
				CacheCreate: n(t.Get("cache.write")), CacheRead: n(t.Get("cache.read")),
			},
			ts:    m.Get("created").Int(),
			model: m.Get("model").Str,
		}
		var added bool
		if added, err = s.count(r, main); added && main && r.model != "" && r.model != s.Model {
			s.Model = r.model
		}
		return err == nil
	})
	return err
}
