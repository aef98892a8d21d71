package transport

// A request to a desktop surface (Pulse, Coucou, VPet) can cross machines:
// on an agent's machine where that surface is absent while a relay is set
// up there (internal/remote), the runtime hands it to the relay instead of
// doing it, and `hookwire remote` on the desktop carries it out there.

// Crosser is a Request that can be carried out on another machine.
type Crosser interface {
	Request
	// Absent reports that the request's local target is not on this
	// machine (no noctalia on PATH, no socket at the path): only then is
	// it handed over. Asked only where a relay is set up.
	Absent() bool
	// Crossing is the delivery as the relay carries it: what the surface
	// needs, nothing of this machine's (no path, no command, no token).
	Crossing() Crossing
}

// Crossing is a surface's finished delivery, for the relay's wire
// (remote.Delivery).
type Crossing struct {
	// Surface is remote.Pulse, remote.Coucou or remote.VPet.
	Surface string
	// Name is the event's name, for the debug log ("relay pulse tool_start").
	Name string
	// Session is the agent's session; Keep marks its start and end, which
	// a full spool never drops.
	Session string
	Keep    bool
	// Pulse: the event and its payload token.
	Event, Payload string
	// Coucou: the JSON object for its socket; VPet: the envelope, without
	// the token.
	Body []byte
	// Ask: the hook waits for the answer (a Coucou approval), which comes
	// back as the Reply's Body; it is never spooled.
	Ask bool
}
