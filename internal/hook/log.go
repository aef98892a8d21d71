package hook

import (
	"encoding/json"
	"os"
	"time"
)

// record is one line of the debug log (PULSE_LOG): what one invocation saw,
// decided and sent. It never holds a secret, a prompt or a tool's output:
// requests are recorded by their Summary.
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
	Finisher    bool       `json:"finisher,omitempty"`
	FinisherPID int        `json:"finisher_pid,omitempty"`
	Sent        []delivery `json:"sent,omitempty"`
	Outcome     string     `json:"outcome"`
	Error       string     `json:"error,omitempty"`
	Notes       []string   `json:"notes,omitempty"`
	Duration    float64    `json:"ms"`
}

type delivery struct {
	To     string `json:"to"`
	Status int    `json:"status,omitempty"`
	Reply  string `json:"reply,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Outcomes.
const (
	outcomeOK      = "ok"      // everything sent was delivered
	outcomeFailed  = "failed"  // a delivery failed; see error
	outcomeNothing = "nothing" // nothing to send; the notes say why
	outcomeLater   = "later"   // a finisher sends it (finisher_pid)
	outcomeDryRun  = "dry-run" // printed, not sent
	outcomePanic   = "panic"   // a bug; the notes hold the stack
	outcomeTimeout = "timeout" // the watchdog ended the process at the hard deadline
	outcomeArgs    = "bad-arguments"
)

// appendLog writes the record as one line. A single write on an O_APPEND
// descriptor keeps concurrent hooks' lines whole. Any failure is silent: the
// log is a debugging aid and must not become a way to fail.
func appendLog(path string, r *record) {
	if path == "" {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
