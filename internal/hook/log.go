package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/text"
)

// record is one line of the debug log (PULSE_LOG): what one invocation saw,
// decided and sent. Requests are recorded by their Summary, never with their
// body; what the log does hold of the outside world (a URL in a summary or an
// error, a reply's first bytes, a note) is redacted (text.Redact) as it is
// written: a URL's userinfo, bearer tokens, token-like values.
type record struct {
	Time    string `json:"time"`
	Binary  string `json:"binary"`
	Version string `json:"version"`
	Agent   string `json:"agent,omitempty"`
	Event   string `json:"event,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Session string `json:"session,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
	// Finisher marks the line of a finisher, which no agent waits for;
	// FinisherPID is the finisher a hook started (finisher.go).
	Finisher    bool `json:"finisher,omitempty"`
	FinisherPID int  `json:"finisher_pid,omitempty"`
	// Courier marks the line of a courier, which carries on the deliveries
	// a hook handed over (courier.go); CourierPID is the courier a hook
	// started.
	Courier    bool       `json:"courier,omitempty"`
	CourierPID int        `json:"courier_pid,omitempty"`
	Sent       []delivery `json:"sent,omitempty"`
	Outcome    string     `json:"outcome"`
	Error      string     `json:"error,omitempty"`
	Notes      []string   `json:"notes,omitempty"`
	Duration   float64    `json:"ms"`
}

type delivery struct {
	To     string `json:"to"`
	Status int    `json:"status,omitempty"`
	Reply  string `json:"reply,omitempty"`
	Error  string `json:"error,omitempty"`
	// Courier: handed over to the courier, whose line has its outcome.
	// Dropped: not sent, its surface being late (courier.go).
	Courier bool `json:"courier,omitempty"`
	Dropped bool `json:"dropped,omitempty"`
}

// Outcomes.
const (
	outcomeOK      = "ok"      // everything sent was delivered
	outcomeFailed  = "failed"  // a delivery failed; see error
	outcomeNothing = "nothing" // nothing to send; the notes say why
	outcomeLater   = "later"   // a finisher sends it (finisher_pid)
	outcomeCourier = "courier" // a delivery outlasted the grace: the courier carries it on (courier_pid)
	outcomeSkipped = "skipped" // its surface is late: what it would send was dropped (notes)
	outcomeDryRun  = "dry-run" // printed, not sent
	outcomePanic   = "panic"   // a bug; the notes hold the stack
	outcomeTimeout = "timeout" // the watchdog ended the process at the hard deadline
	outcomeArgs    = "bad-arguments"
)

// appendLog writes the record as one line. A single write on an O_APPEND
// descriptor keeps concurrent hooks' lines whole. Any failure is silent: the
// log is a debugging aid and must not become a way to fail.
//
// The path may be one another user chose first (/tmp/hookwire.log, as
// earlier versions suggested): a link there, a FIFO, or a file of theirs
// (to read what we log) is skipped, never written through, never waited on
// (safefile).
func appendLog(path string, r *record) {
	if path == "" {
		return
	}
	redactRecord(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // <redacted> reads as such
	if enc.Encode(r) != nil {
		return
	}
	f, err := openLog(path)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(buf.Bytes()) // Encode ends the line
}

// SuggestedLog is where doctor suggests the debug log go: a directory only
// the user can write ($XDG_RUNTIME_DIR, else the user's cache directory),
// never a shared one such as /tmp, where another user could be first.
func SuggestedLog(getenv func(string) string) string {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hookwire.log")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "hookwire.log")
	}
	return "$HOME/.cache/hookwire.log"
}

// openLog is safefile.OpenLog; a test makes it block, as a log on a hung
// network mount would.
var openLog = safefile.OpenLog

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// redactRecord removes credentials from what the record holds of the outside
// world. It runs only when the log is written: the regular expressions cost
// a hook that does not log nothing.
func redactRecord(r *record) {
	for i := range r.Sent {
		d := &r.Sent[i]
		d.To, d.Error = text.Redact(d.To), text.Redact(d.Error)
		d.Reply = text.ClipBytes(text.Redact(d.Reply), 200)
	}
	r.Error = text.Redact(r.Error)
	for i := range r.Notes {
		r.Notes[i] = text.Redact(r.Notes[i])
	}
}
