package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transport"
)

// A surface sees a session's events in the order the agent sent them, also
// when a courier delivers some of them (courier.go). Each session × surface
// pair has, in the courier corner of the state directory:
//
//   - an order lock (KEY.order): held by whoever delivers the pair's events
//     outside the agent's wait, and taken without waiting by each hook
//     before its handler runs. A hook that gets it delivers in-process; if
//     it hands anything over, the lock goes with it to its courier.
//   - a queue (KEY.queue, one parcel a line): where a hook that finds the
//     lock taken puts its requests, all of them handed over from the start;
//     the lock's holder delivers them after its own, in order, and lets the
//     lock go only once the queue is empty.
//   - a meta lock (KEY.meta), held for microseconds by whoever looks at the
//     queue, so that a parcel is never queued after its deliverer looked
//     for the last time.
//
// The key is the session's and the surface's: a hung surface holds back
// only its own deliveries of that session.
type order struct {
	store  *state.Store // nil until the order is looked at (settle)
	key    string
	lock   *os.File // held: this process, then its courier, delivers the pair's events
	behind bool     // an earlier event's courier delivers (or left events queued)
}

// placeFor takes surface's place in session's deliveries: nil when there is
// no session to order (or no state directory: delivered unordered).
func (inv *Invocation) placeFor(surface, session string) *order {
	if session == "" {
		return nil
	}
	key := state.Key(session) + "." + surface
	// The common case, at one lstat: no courier delivers the pair's events
	// (the last one took its lock file away when done). Nothing to go
	// behind; the lock is taken only if this hook hands something over.
	if _, err := os.Lstat(filepath.Join(state.Root(os.Getenv), courierStore, key+".order.lock")); errors.Is(err, fs.ErrNotExist) {
		return &order{key: key}
	}
	store, err := state.Open(os.Getenv, courierStore)
	if err != nil {
		inv.Notef("courier: %v: delivered without its order", err)
		return nil
	}
	o := &order{store: store, key: key}
	ctx, cancel := metaContext(inv.Context())
	defer cancel()
	release, err := store.Lock(ctx, o.key+".meta")
	if err != nil {
		inv.Notef("courier: %v: delivered without its order", err)
		return nil
	}
	defer release()
	f, ok, _ := store.Hold(o.key + ".order")
	if ok {
		o.lock = f
	}
	o.behind = !ok || o.queued()
	return o
}

// queued reports whether the pair's queue holds anything.
func (o *order) queued() bool {
	b, _ := o.store.Read(o.key + ".queue")
	return len(bytes.TrimSpace(b)) > 0
}

// settle decides, once the handler has run, what becomes of p (what it
// handed over): queued behind an earlier courier's, or a run for this
// hook's courier, which then holds the order lock and drains the queue.
// ok is false when there is no run (nothing to do, or the lock's holder
// does it).
func (o *order) settle(inv *Invocation, p transport.Parcel) (r courierRun, ok bool) {
	r = courierRun{Parcel: p, Lock: -1}
	if o == nil {
		return r, len(p.Items) > 0
	}
	if o.store == nil {
		if len(p.Items) == 0 {
			return r, false // nothing handed over: no order to keep
		}
		store, err := state.Open(os.Getenv, courierStore)
		if err != nil {
			inv.Notef("courier: %v: handed over without its order", err)
			return r, true
		}
		o.store = store
	}
	ctx, cancel := metaContext(context.Background())
	defer cancel()
	release, err := o.store.Lock(ctx, o.key+".meta")
	if err != nil {
		inv.Notef("courier: %v: handed over without its order", err)
		o.letGo()
		return r, len(p.Items) > 0
	}
	defer release()
	if o.lock == nil {
		if f, held, _ := o.store.Hold(o.key + ".order"); held {
			o.lock = f
		}
	}
	if o.lock == nil {
		// Another hook's courier delivers the pair's events (hooks the
		// agent ran at once): behind it, or beside it when what is left
		// is a connection, which cannot wait in a file.
		if len(p.Items) == 0 {
			return r, false
		}
		if !slices.ContainsFunc(p.Items, func(it transport.Item) bool { return it.Conn >= 0 }) && o.enqueue(p) == nil {
			return r, false
		}
		inv.Notef("courier: another courier delivers this session's events to %s: this one's go beside them", p.Surface)
		return r, true
	}
	if o.behind && len(p.Items) > 0 {
		if err := o.enqueue(p); err != nil {
			inv.Notef("courier: queueing behind the earlier events: %v: handed over without its order", err)
			o.letGo()
			return r, true
		}
		r.Parcel.Items = nil
	}
	r.Key = o.key
	if len(r.Parcel.Items) > 0 || o.queued() {
		return r, true
	}
	o.done()
	return r, false
}

// letGo releases the order lock, if held.
func (o *order) letGo() { o.release(false) }

// done releases the order lock with the queue empty (the meta lock held),
// and takes its file away, so that the next hook finds no courier at one
// lstat (placeFor). A hook that opened the file before it went takes a new
// one (state.Store.Hold).
func (o *order) done() { o.release(true) }

func (o *order) release(remove bool) {
	if o.lock != nil {
		if remove && o.store != nil {
			os.Remove(filepath.Join(o.store.Dir(), o.key+".order.lock"))
		}
		state.Unlock(o.lock)
		o.lock.Close()
		o.lock = nil
	}
}

// enqueue appends p to the pair's queue (the meta lock held).
func (o *order) enqueue(p transport.Parcel) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	old, err := o.store.Read(o.key + ".queue")
	if err != nil {
		return err
	}
	return o.store.Write(o.key+".queue", append(append(old, line...), '\n'))
}

// pop takes the first parcel of the pair's queue (the meta lock held); ok
// is false when it is empty.
func pop(store *state.Store, key string) (p transport.Parcel, ok bool) {
	b, _ := store.Read(key + ".queue")
	for {
		b = bytes.TrimLeft(b, "\n")
		if len(b) == 0 {
			store.Remove(key + ".queue")
			return p, false
		}
		line, rest, _ := bytes.Cut(b, []byte("\n"))
		b = rest
		if json.Unmarshal(line, &p) != nil {
			continue // not one of ours: skipped
		}
		if len(bytes.TrimSpace(rest)) == 0 {
			store.Remove(key + ".queue")
		} else {
			store.Write(key+".queue", rest)
		}
		return p, true
	}
}

// drainQueue delivers, holding the pair's order lock, what its queue holds,
// in order, until it is empty (then lets the lock go) or the budget is
// spent (then lets it go with the rest queued, for the next hook's
// courier).
func (inv *Invocation) drainQueue(key string, lock *os.File) {
	o := &order{key: key, lock: lock}
	store, err := state.Open(os.Getenv, courierStore)
	if err != nil {
		o.letGo()
		return
	}
	o.store = store
	for {
		ctx, cancel := metaContext(context.Background())
		release, err := store.Lock(ctx, key+".meta")
		cancel()
		if err != nil {
			o.letGo()
			return
		}
		p, ok := pop(store, key)
		if !ok {
			o.done()
			release()
			return
		}
		if inv.Context().Err() != nil {
			// Out of budget: it goes back first, for the next hook's
			// courier (the lock file stays: the next hook looks).
			o.requeueFirst(p)
			o.letGo()
			release()
			return
		}
		release()
		if _, late := LateSince(os.Getenv, p.Surface); late {
			inv.Notef("courier: %d queued request(s) dropped: %s is late", len(p.Items), p.Surface)
			continue
		}
		inv.deliverParcel(p, nil)
	}
}

// requeueFirst puts p back at the head of the queue (the meta lock held).
func (o *order) requeueFirst(p transport.Parcel) {
	line, err := json.Marshal(p)
	if err != nil {
		return
	}
	old, _ := o.store.Read(o.key + ".queue")
	o.store.Write(o.key+".queue", append(append(line, '\n'), old...))
}
