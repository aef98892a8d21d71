// Package remote carries the desktop surfaces' deliveries from a machine an
// agent runs on (an SSH dev box, a container, WSL) to the desktop that shows
// them, over a pipe the user's own ssh (or docker exec -i, wsl.exe, …) gives.
//
// On the agent's machine a hook whose surface is absent there, while a relay
// is set up, hands its finished delivery over (the spool, and for an
// approval the relay's socket); `hookwire relay`, run by the desktop over
// ssh, streams the spool to its stdout. On the desktop `hookwire remote`
// reads that stream, checks every line against the five surfaces' fixed
// shapes, names the host in it, and carries it out as a local hook would.
//
// The wire is JSON lines, both ways. Relay → desktop: one Hello, then
// Deliveries. Desktop → relay: Controls (acks and answers).
package remote

import "encoding/json"

// Version is the wire's version; a desktop refuses a relay whose Hello
// carries another.
const Version = 1

// MaxLine bounds every line on the wire, both ways: a longer one is dropped
// whole (a Coucou payload is capped well below it on the agent's machine).
const MaxLine = 256 << 10

// The surfaces a delivery may be for: the desktop programs. Trail Boss and
// Coral live where the agent's tmux lives, and keep delivering there.
const (
	Pulse  = "pulse"  // noctalia Pulse: an event and its payload token
	Coucou = "coucou" // Coucou: the one JSON object sent on its socket
	VPet   = "vpet"   // VPet: the envelope, without the desktop's token
)

// Hello is the relay's first line.
type Hello struct {
	V       int    `json:"v"`
	Version string `json:"version"` // the relay binary's version
	Host    string `json:"host"`    // the remote machine's own hostname, for the log only
	// Spool names the relay directory's spool: its seqs rise for as long
	// as it stays the same, so a desktop knows what it already carried out
	// (a new one, after the directory was made again, starts over).
	Spool string `json:"spool,omitempty"`
}

// Delivery is one surface's finished delivery, made where the agent runs.
type Delivery struct {
	// Seq is its place in the spool, rising; the desktop acks it once
	// carried out. Zero for an Ask (never spooled).
	Seq uint64 `json:"seq,omitempty"`
	// Ask is set on an approval whose answer the hook waits for: the
	// desktop sends a Control with Answer = Ask within WithinMS.
	Ask      uint64 `json:"ask,omitempty"`
	WithinMS int64  `json:"within_ms,omitempty"`
	// Time is when the hook made it (Unix milliseconds).
	Time    int64  `json:"t"`
	Surface string `json:"surface"`
	// Session is the agent's session the delivery is about (for
	// coalescing a replay); Keep marks a session's start and end, which a
	// full spool never drops.
	Session string `json:"session,omitempty"`
	Keep    bool   `json:"keep,omitempty"`

	// Pulse: the event and its payload token (noctalia msg's last two
	// arguments; Payload empty for a bare event).
	Event   string `json:"event,omitempty"`
	Payload string `json:"payload,omitempty"`
	// Coucou: the JSON object for its socket. VPet: the envelope.
	Body json.RawMessage `json:"body,omitempty"`
}

// Envelope is a line of the relay's stream: a Hello or a Delivery.
type Envelope struct {
	Hello *Hello `json:"hello,omitempty"`
	*Delivery
}

// Control is a line from the desktop to the relay.
type Control struct {
	// Ack: every delivery up to this Seq is carried out (or refused for
	// good): the relay may drop it from the spool.
	Ack uint64 `json:"ack,omitempty"`
	// Answer is the Ask this answers; Reply the surface's answer, as its
	// socket gave it (empty: none came, the agent asks in its terminal).
	Answer uint64 `json:"answer,omitempty"`
	Reply  string `json:"reply,omitempty"`
}
