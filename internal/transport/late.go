package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// A delivery the agent does not wait for (no reply of it decides anything)
// may outlive its hook: when it is still running once the hook has nothing
// else to do but for a short grace, the hook hands it over (Late.HandOver)
// and returns, and a courier, a detached process of the same binary,
// carries it on with a budget of its own (internal/hook's courier.go).
//
// What is handed over is exactly what is left to do, so that nothing is
// lost and nothing arrives twice:
//
//   - a request whose connection is open: the connection itself (its
//     descriptor goes to the courier), with the bytes still to write, and
//     the courier reads the reply. A request written whole is never
//     written again; a surface that took it and is slow to answer sees
//     the same connection, open until it answers.
//   - a request not started, or still connecting (a full backlog, a daemon
//     slow to accept): the request, done by the courier from the start. No
//     byte of it reached the surface.
//   - every later request of the same surface in the hook: queued, in
//     order, behind those.
//
// A command (`noctalia msg`) or a file append is never interrupted: the
// hook waits for it within its own deadline, as it always did, since a
// command cut short may have done its work and would do it again.

// ErrHandedOver is what a request handed over returns: the courier carries
// it on, and its outcome is in the courier's log line.
var ErrHandedOver = errors.New("handed over to the courier: it goes on after the hook")

// Late is one surface's deliveries in a hook process that may hand them
// over. Its methods are safe for concurrent use.
type Late struct {
	mu     sync.Mutex
	over   bool
	cancel context.CancelFunc // of the request in flight, which HandOver interrupts
	held   []Held
}

// Held is a request left for the courier: with Conn, its connection, on
// which Rest is still to be written before its reply is read; without,
// the request whole.
type Held struct {
	Request Portable
	Conn    *os.File
	Rest    []byte
}

// Portable is a request the courier can carry on: its Kind names its
// decoder (RegisterKind), and it can go on from an open connection.
type Portable interface {
	Request
	Kind() string
	// Resume writes rest on conn, then reads the reply as Do would.
	Resume(ctx context.Context, conn net.Conn, rest []byte) (Reply, error)
}

type lateKey struct{}

// lateReq is a request in flight under a Late: base is the context it was
// sent with, which HandOver does not cancel (a command runs on it).
type lateReq struct {
	late *Late
	base context.Context
}

// Begin returns the context for one request of l's surface, which
// HandOver interrupts, and end, to call once the request returned.
func (l *Late) Begin(ctx context.Context) (context.Context, func()) {
	c, cancel := context.WithCancel(context.WithValue(ctx, lateKey{}, &lateReq{late: l, base: ctx}))
	l.mu.Lock()
	l.cancel = cancel
	l.mu.Unlock()
	return c, func() {
		l.mu.Lock()
		l.cancel = nil
		l.mu.Unlock()
		cancel()
	}
}

// HandOver stops the request in flight and makes every later one go to the
// courier; it returns at once (the request in flight returns soon after,
// having handed itself over).
func (l *Late) HandOver() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.over = true
	if l.cancel != nil {
		l.cancel()
	}
}

// Over reports whether HandOver was called.
func (l *Late) Over() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.over
}

// Held returns what was handed over, in order, and forgets it (the
// connections are the caller's to close).
func (l *Late) Held() []Held {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.held
	l.held = nil
	return h
}

func (l *Late) hold(h Held) {
	l.mu.Lock()
	l.held = append(l.held, h)
	l.mu.Unlock()
}

// lateOf is the Late of ctx's request, if any.
func lateOf(ctx context.Context) *lateReq {
	r, _ := ctx.Value(lateKey{}).(*lateReq)
	return r
}

// Queued is called by a portable request's Do before it starts: when its
// surface's deliveries were handed over, the request goes to the courier
// whole (true: Do returns ErrHandedOver).
func Queued(ctx context.Context, r Portable) bool {
	lr := lateOf(ctx)
	if lr == nil || !lr.late.Over() {
		return false
	}
	lr.late.hold(Held{Request: r})
	return true
}

// HandedOver is called by a portable request's Do when a step failed: if
// the failure is the hand-over's doing, what is left goes to the courier
// (conn nil: the request whole; else the connection, with unwritten its
// bytes still to write) and it returns true. conn is then the courier's:
// the caller closes its own copy as usual.
func HandedOver(ctx context.Context, r Portable, conn net.Conn, unwritten []byte) bool {
	lr := lateOf(ctx)
	if lr == nil || !lr.late.Over() || lr.base.Err() != nil {
		return false // a real failure, or the deadline's
	}
	if conn == nil {
		lr.late.hold(Held{Request: r})
		return true
	}
	sc, ok := conn.(interface{ File() (*os.File, error) })
	if !ok {
		return false
	}
	f, err := sc.File() // a copy of the descriptor, which outlives conn
	if err != nil {
		return false
	}
	lr.late.hold(Held{Request: r, Conn: f, Rest: unwritten})
	return true
}

// Uninterrupted is the context a request that must not be cut short by a
// hand-over runs on (a command, an append): its deadline, without the
// hand-over's cancel.
func Uninterrupted(ctx context.Context) context.Context {
	if lr := lateOf(ctx); lr != nil {
		return lr.base
	}
	return ctx
}

// The courier's wire: what the hook hands it, as JSON on its stdin, with
// the connections as descriptors 3, 4, … in Conn order.

// Parcel is one surface's requests, in order.
type Parcel struct {
	Surface string `json:"surface"`
	// Time is when the hook handed it over, in Unix milliseconds.
	Time  int64  `json:"time"`
	Items []Item `json:"items"`
}

// Item is one Held, encoded: Conn is the index of its connection among the
// descriptors handed over, -1 for none.
type Item struct {
	Kind    string          `json:"kind"`
	Request json.RawMessage `json:"request"`
	Conn    int             `json:"conn"`
	Rest    []byte          `json:"rest,omitempty"`
}

var kinds = map[string]func([]byte) (Portable, error){
	"socket":  decodeAs[SocketLine],
	"command": decodeAs[Command],
	"append":  decodeAs[Append],
}

// decodeAs decodes a request of type T.
func decodeAs[T Portable](b []byte) (Portable, error) {
	var r T
	err := json.Unmarshal(b, &r)
	return r, err
}

// RegisterKind makes a kind of request of another package decodable by
// the courier (httpsend's).
func RegisterKind[T Portable](kind string) { kinds[kind] = decodeAs[T] }

// Encode turns held requests into items, appending their connections to
// files (whose index each item names).
func Encode(held []Held, files []*os.File) ([]Item, []*os.File, error) {
	var items []Item
	for _, h := range held {
		b, err := json.Marshal(h.Request)
		if err != nil {
			return nil, files, err
		}
		it := Item{Kind: h.Request.Kind(), Request: b, Conn: -1, Rest: h.Rest}
		if h.Conn != nil {
			it.Conn = len(files)
			files = append(files, h.Conn)
		}
		items = append(items, it)
	}
	return items, files, nil
}

// Carry does what an item says, on the descriptor conns[it.Conn] if it
// has one: the courier's delivery.
func Carry(ctx context.Context, it Item, conns []*os.File) (Portable, Reply, error) {
	decode := kinds[it.Kind]
	if decode == nil {
		return nil, Reply{}, fmt.Errorf("a request of kind %q, which this binary does not know", it.Kind)
	}
	r, err := decode(it.Request)
	if err != nil {
		return nil, Reply{}, err
	}
	if it.Conn < 0 {
		reply, err := r.Do(ctx)
		return r, reply, err
	}
	if it.Conn >= len(conns) || conns[it.Conn] == nil {
		return r, Reply{}, errors.New("its connection was not handed over")
	}
	conn, err := net.FileConn(conns[it.Conn])
	conns[it.Conn].Close()
	if err != nil {
		return r, Reply{}, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	reply, err := r.Resume(ctx, conn, it.Rest)
	return r, reply, err
}
