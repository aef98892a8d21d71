package remote

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
)

// logLine is a debug log (PULSE_LOG) line, the shape internal/hook writes
// for a local binary's invocation, plus the host it came from. Its sent
// entries are the request's Summary, never its body; a refused line's
// error says why, never what it held.
type logLine struct {
	Time     string    `json:"time"`
	Binary   string    `json:"binary"`
	Version  string    `json:"version"`
	Host     string    `json:"host"`
	Agent    string    `json:"agent,omitempty"`
	Event    string    `json:"event,omitempty"`
	Kind     string    `json:"kind,omitempty"`
	Session  string    `json:"session,omitempty"`
	Sent     []logSent `json:"sent,omitempty"`
	Outcome  string    `json:"outcome"`
	Error    string    `json:"error,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	Duration float64   `json:"ms"`
}

type logSent struct {
	To     string `json:"to"`
	Status int    `json:"status,omitempty"`
	Reply  string `json:"reply,omitempty"`
	Error  string `json:"error,omitempty"`
}

// logSent records a delivery carried out.
func (c *conn) logSent(start time.Time, del Delivery, task Carry, reply transport.Reply, err error) {
	if c.d.Log == "" {
		return
	}
	s := logSent{To: text.Redact(task.Request.Summary()), Status: reply.Status,
		Reply: text.ClipBytes(text.Redact(string(reply.Body)), 200)}
	l := logLine{
		Time: start.UTC().Format(time.RFC3339Nano), Binary: binaryName(del.Surface), Version: c.d.Version,
		Host: c.host.Name, Agent: task.Agent, Event: task.Event, Kind: task.Kind, Session: task.Session,
		Outcome: "ok", Duration: float64(time.Since(start).Microseconds()) / 1000,
	}
	if err != nil {
		s.Error = text.Redact(err.Error())
		l.Outcome, l.Error = "failed", s.Error
	}
	l.Sent = []logSent{s}
	note := "from " + c.host.Name
	switch {
	case del.Ask != 0:
		note += " (an approval)"
	case del.Seq != 0:
		note += " (seq " + itoa(del.Seq) + ")"
	}
	l.Notes = []string{note}
	c.d.append(l)
}

// skip records a delivery that carries nothing out here.
func (c *conn) skip(del Delivery, task Carry, why error) {
	c.d.append(logLine{
		Time: time.Now().UTC().Format(time.RFC3339Nano), Binary: binaryName(del.Surface), Version: c.d.Version,
		Host: c.host.Name, Agent: task.Agent, Event: task.Event, Kind: task.Kind, Session: task.Session,
		Outcome: "nothing", Notes: []string{"from " + c.host.Name, text.Redact(why.Error())},
	})
}

// append writes the line, as internal/hook's appendLog does: one write on
// an O_APPEND descriptor opened safely (safefile), any failure silent.
func (d *Desktop) append(l logLine) {
	if d.Log == "" {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(l) != nil {
		return
	}
	f, err := safefile.OpenLog(d.Log)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(buf.Bytes())
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
