package transcript

import (
	"io"
	"os"

	"github.com/tidwall/gjson"
)

// Cline CLI 3.0.65 keeps a session in ~/.cline/data/sessions/<id>/ (its
// hooks' sessionContext.rootSessionId):
//
//	<id>.json           the session's record, rewritten whole: "status"
//	                    ("running", "completed", …), "ended_at", "model", and
//	                    "metadata.usage" {"inputTokens","outputTokens",
//	                    "cacheReadTokens","cacheWriteTokens","totalCost"}, the
//	                    session's totals, written when the run ends, a moment
//	                    after its TaskComplete hook fires;
//	<id>.messages.json  the conversation, each assistant message with its
//	                    call's figures.
//
// The burn is the record's totals, read whole at every scan, as Droid's
// settings file is: inputTokens counts the cached input too (the OpenAI
// convention, recorded against chat completions), outputTokens the
// reasoning. A run that has ended ("status" no longer "running") is the
// turn's end in the file: a turn end waits for it (Format.Behind, ByTime).

// clineRecordMax bounds the record read: it is small, and anything much
// larger is not Cline's.
const clineRecordMax = 1 << 20

// scanCline reads the totals in a Cline session record into Base.
func (s *Session) scanCline(record string) (Result, error) {
	f, err := os.Open(record)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, clineRecordMax+1))
	if err != nil {
		return Result{}, err
	}
	if len(b) > clineRecordMax || !gjson.ValidBytes(b) {
		return Result{Done: false}, nil // torn (being rewritten): try again later
	}
	root := gjson.ParseBytes(b)
	u := root.Get("metadata.usage")
	in, read, written := n(u.Get("inputTokens")), n(u.Get("cacheReadTokens")), n(u.Get("cacheWriteTokens"))
	got := Usage{In: max(0, in-read-written), Out: n(u.Get("outputTokens")), CacheRead: read, CacheCreate: written}
	s.Base = s.Base.Max(got)
	if m := root.Get("model").Str; m != "" {
		s.Model = m
	}
	if st := root.Get("status").Str; st != "" && st != "running" && u.IsObject() {
		s.TurnEnded = true
		s.FinalTS = max(s.FinalTS, millis(root.Get("ended_at").Str))
	} else {
		s.TurnEnded = false
	}
	return Result{Done: true}, nil
}
