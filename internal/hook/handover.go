package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

// On an agent's machine where a desktop surface is absent while a relay is
// set up (`hookwire relay` made its directory), Send hands that surface's
// deliveries to the relay instead (internal/remote): the spool and a poke,
// or for an approval a round-trip on the relay's socket.

// relayDir is the relay directory when one is set up here, looked up once
// per event: a machine without one pays one lstat per hook.
var relayDir = lookUpRelay()

func lookUpRelay() func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		dir := remote.Dir(os.Getenv)
		ok, err := remote.SetUp(dir)
		if !ok {
			dir = ""
		}
		return dir, err
	})
}

// askMargin is kept from an approval's remaining budget when the relay is
// told how long it may wait: its answer must reach the hook in time.
const askMargin = 50 * time.Millisecond

// RelaySetUp reports whether a relay is set up on this machine: a surface
// whose target is absent then still makes its delivery, for Send to hand
// over (VPet: without its token, whose file is not created here).
func (inv *Invocation) RelaySetUp() bool {
	dir, _ := relayDir()
	return dir != ""
}

// crossing is r as a delivery for the relay, when it is one that can cross
// and its local target is absent while a relay is set up.
func (inv *Invocation) crossing(r transport.Request) (transport.Crosser, string, bool) {
	c, ok := r.(transport.Crosser)
	if !ok {
		return nil, "", false
	}
	dir, err := relayDir()
	if err != nil {
		inv.Notef("relay: %v: nothing is handed over", err)
	}
	if dir == "" || !c.Absent() {
		return nil, "", false
	}
	return c, dir, true
}

// toRelay gives the relay in dir what c would have delivered here.
func (inv *Invocation) toRelay(dir string, c transport.Crosser) (transport.Reply, error) {
	x := c.Crossing()
	d := remote.Delivery{Time: time.Now().UnixMilli(), Surface: x.Surface, Session: x.Session, Keep: x.Keep,
		Event: x.Event, Payload: x.Payload, Body: json.RawMessage(x.Body)}
	ctx := inv.Context()
	if x.Ask {
		d.Ask = 1 // any nonzero id: the relay numbers its asks
		if dl, ok := ctx.Deadline(); ok {
			d.WithinMS = max(time.Until(dl)-askMargin, 0).Milliseconds()
		}
	}
	rec := delivery{To: "relay " + x.Surface + " " + x.Name}
	line, err := json.Marshal(d)
	if err != nil {
		return inv.handed(rec, transport.Reply{}, fmt.Errorf("relay: %w", err))
	}
	if inv.dryRun {
		inv.write([]byte("relay " + dir + ": " + string(line) + "\n"))
		return inv.handed(rec, transport.Reply{}, nil)
	}
	if x.Ask {
		body, err := remote.Ask(ctx, dir, line)
		rec.Reply = string(body)
		return inv.handed(rec, transport.Reply{Body: body}, err)
	}
	seq, poked, err := remote.Hand(ctx, dir, line)
	rec.Reply = "spooled"
	switch {
	case err == nil && seq == 0:
		rec.Reply = "handed live: the spool's disk is full"
	case err == nil && !poked:
		rec.Reply = "spooled; " + remote.ErrNoDesktop.Error()
	}
	return inv.handed(rec, transport.Reply{}, err)
}

// handed records a hand-over in the log, as Send records a delivery.
func (inv *Invocation) handed(rec delivery, reply transport.Reply, err error) (transport.Reply, error) {
	if err != nil {
		rec.Reply = ""
		rec.Error = err.Error()
		if errors.Is(err, remote.ErrNoDesktop) {
			err = fmt.Errorf("relay: %w", err)
			rec.Error = err.Error()
		}
	}
	inv.mu.Lock()
	inv.rec.Sent = append(inv.rec.Sent, rec)
	inv.mu.Unlock()
	return reply, err
}
