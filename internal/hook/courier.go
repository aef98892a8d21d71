package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transport"
)

// Every surface on its own clock, and the agent waits only for what it
// needs. In a combined process each surface's handler runs concurrently,
// with its own state and locks; the agent waits for the surfaces whose
// reply may decide (a Coucou approval) as long as they take, and for the
// others at most Grace more. A delivery still running then is handed over
// (transport's late.go): its connection, or the request itself if it never
// reached the surface, and the surface's later requests of the event, go
// to a courier, this binary run again, detached (a session of its own,
// none of the agent's pipes: the finisher's way), which carries them on
// within a budget of its own (Budget, from its start) and logs what became
// of them. The hook returns once it has started the courier.
//
// The courier is started by the hook, which exits at once: it is never the
// agent's child, so it cannot become a zombie under the agent, and it ends
// by its own deadline or when killed.
//
// Order: a surface sees a session's events in the order the agent sent
// them. While a courier delivers a session's events to a surface, it holds
// that pair's order lock (order.go), and a later event's requests to that
// surface go into the pair's queue, which the courier delivers after its
// own, in order; the surface's other sessions, and the other surfaces,
// wait for nothing.
//
// A surface that made a courier wait out its budget (it took the
// connection and never answered, or never accepted it) is remembered for
// lateMemory: its handler still runs (its state stays the session's), but
// what it would send is dropped, and the agent pays no grace for it;
// doctor says so (LateSince).
//
// Only a hook line with no flag but --agent, an event no surface can
// decide, and an invocation that can start a detached process (not a dry
// run, not a finisher; not on Windows, where the hook waits as before)
// hand anything over.
const (
	// Grace is how long the agent waits for deliveries it needs nothing
	// from, once the rest is done. Five surfaces' deliveries take a
	// millisecond or two (docs/performance.md): a grace of tens of
	// milliseconds is reached only by a surface that is slow or hung.
	Grace = 30 * time.Millisecond
	// LateMemory is how long a surface that made a courier wait out its
	// budget is skipped.
	LateMemory = time.Minute
	// queueStale is the age past which a queued event is dropped rather
	// than shown: a surface that far behind shows the past.
	queueStale = 10 * time.Second
)

// EnvGrace sets the grace (a Go duration: 30ms, 1s); 0 turns hand-overs
// off, and the hook waits for every delivery within its budget, as the
// surfaces' own binaries do. GraceVar documents it, for hookwire's --help
// and docs/environment.md.
const EnvGrace = "HOOKWIRE_GRACE"

// GraceVar is EnvGrace, documented.
var GraceVar = Var{Name: EnvGrace, Help: "how long the agent waits, once what it needs is done, for deliveries whose reply decides nothing (default 30ms); one still running then goes on in a courier after the hook returns (docs/hookwire.md); 0: the hook waits for every delivery, within its budget"}

// grace is the grace this process has: Grace, or what EnvGrace says.
func (inv *Invocation) grace() time.Duration {
	v := os.Getenv(EnvGrace)
	if v == "" {
		return Grace
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		inv.Notef("%s=%q is not a duration: the grace is %v", EnvGrace, v, Grace)
		return Grace
	}
	return d
}

// envCourier, set in a courier's environment, makes the process a courier:
// its stdin is its runs (courierRun), its descriptors 3… the connections
// and order locks handed over.
const envCourier = "HOOKWIRE_COURIER"

// courierStore is the state directory's corner of the couriers: their
// runs while they start, the order locks and queues, and the surfaces
// found late.
const courierStore = "courier"

// mayHandOver says whether surface b's deliveries of ev may be handed over
// to a courier.
func (inv *Invocation) mayHandOver(b *Binary, ev agent.Event, args []string) bool {
	if !detachable || inv.dryRun || inv.finisher != "" || !plainArgs(args) || ev.Script || inv.grace() == 0 {
		return false
	}
	switch ev.Kind {
	case agent.Unknown, agent.Permission, agent.Review:
		return false // a reply may decide: the agent waits for it
	}
	if strings.EqualFold(ev.Name, "PermissionRequest") {
		return false
	}
	return b.Decides == nil || !b.Decides(ev)
}

// plainArgs reports a hook line with no flag but --agent: a flag a surface
// reads (nb-hook's --ask, --statusline) may change what it prints.
func plainArgs(args []string) bool {
	return !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "-") && a != "--agent" && !strings.HasPrefix(a, "--agent=") && a != "-"
	})
}

// lateMark is the file that says surface made a courier wait out its budget.
func lateMark(getenv func(string) string, surface string) string {
	return filepath.Join(state.Root(getenv), courierStore, surface+".late")
}

// LateSince reports when surface last made a courier wait out its budget,
// if that was within LateMemory: doctor's question, and the hook's.
func LateSince(getenv func(string) string, surface string) (time.Time, bool) {
	fi, err := os.Lstat(lateMark(getenv, surface))
	if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) > LateMemory {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// graceful runs the subs' handlers, each in a goroutine of its own: those
// without a Late are waited for, then the others for at most Grace more;
// the ones still running are handed over. It returns once every handler
// has returned (a handed-over one returns at once).
func (inv *Invocation) graceful(subs []*Invocation, ev agent.Event, run func(*Invocation)) {
	done := make([]chan struct{}, len(subs))
	for i, sub := range subs {
		done[i] = make(chan struct{})
		if sub.late != nil {
			inv.takePlace(sub, ev)
		}
		go func() {
			defer close(done[i])
			run(sub)
		}()
	}
	for i, sub := range subs {
		if sub.late == nil {
			<-done[i]
		}
	}
	wait := inv.grace()
	grace := time.NewTimer(wait)
	defer grace.Stop()
	for i, sub := range subs {
		if sub.late == nil || sub.late.Over() {
			continue
		}
		select {
		case <-done[i]:
		case <-grace.C:
			grace.Reset(0) // the grace is over for every surface left
			sub.late.HandOver()
			sub.Notef("courier: still delivering after the grace (%v): handed over", wait)
		}
	}
	for i := range subs {
		<-done[i]
	}
}

// takePlace sets sub's deliveries up before its handler runs: skipped when
// its surface is late, behind an earlier event's courier when one
// delivers this session's events to it (order.go).
func (inv *Invocation) takePlace(sub *Invocation, ev agent.Event) {
	if since, late := LateSince(os.Getenv, sub.bin.Name); late {
		sub.skipLate = true
		sub.late.HandOver() // nothing goes out: what it would send is dropped
		sub.Notef("courier: %s made a courier wait out its budget at %s: what it would send is dropped until %s",
			sub.bin.Name, since.Format(time.TimeOnly), since.Add(LateMemory).Format(time.TimeOnly))
		return
	}
	sub.order = inv.placeFor(sub.bin.Name, ev.Session)
	if sub.order != nil && sub.order.behind {
		sub.late.HandOver() // all of it goes behind the courier's
		sub.Notef("courier: a courier is delivering this session's earlier events to %s: this one goes behind them", sub.bin.Name)
	}
}

// courierRun is one surface's work for a courier: the requests handed
// over (Parcel), then, holding the pair's order lock (Lock, a descriptor
// index; -1 for none), what its queue holds.
type courierRun struct {
	Parcel transport.Parcel `json:"parcel"`
	Key    string           `json:"key,omitempty"`
	Lock   int              `json:"lock"`
}

// startCourier starts one courier for what the subs handed over and the
// queues they must drain, and gives each its pid; if it cannot, it does
// that work here.
func (inv *Invocation) startCourier(c Combined, subs []*Invocation) {
	var runs []courierRun
	var files []*os.File
	var from []*Invocation
	defer func() {
		for _, f := range files {
			f.Close() // the courier has its own copies (a lock stays held by them)
		}
	}()
	for _, sub := range subs {
		if sub.late == nil {
			continue
		}
		held := sub.late.Held()
		if sub.skipLate {
			for _, h := range held {
				if h.Conn != nil {
					h.Conn.Close()
				}
			}
			continue
		}
		items, fs, err := transport.Encode(held, files)
		files = fs
		if err != nil {
			sub.Notef("courier: %v: not handed over", err)
			continue
		}
		p := transport.Parcel{Surface: sub.bin.Name, Time: time.Now().UnixMilli(), Items: items}
		r, ok := sub.order.settle(sub, p)
		if !ok {
			continue
		}
		if sub.order != nil && sub.order.lock != nil {
			r.Lock, files = len(files), append(files, sub.order.lock)
		}
		runs = append(runs, r)
		from = append(from, sub)
	}
	if len(runs) == 0 {
		return
	}
	pid, err := inv.spawnCourier(runs, files)
	if err != nil {
		inv.Notef("courier: %v: what was handed over goes on here", err)
		inv.carry(c, runs, files)
		files = nil // carry closed them
		return
	}
	for _, sub := range from {
		sub.mu.Lock()
		sub.rec.CourierPID = pid
		sub.mu.Unlock()
	}
}

// spawnCourier runs this binary again as a courier, detached, with the
// runs on its stdin (a private file, gone from the file system before it
// returns) and files as its descriptors 3….
func (inv *Invocation) spawnCourier(runs []courierRun, files []*os.File) (int, error) {
	store, err := state.Open(os.Getenv, courierStore)
	if err != nil {
		return 0, err
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(store.Dir(), ".runs.*")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	defer os.Remove(f.Name())
	if err := json.NewEncoder(f).Encode(runs); err != nil {
		return 0, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return 0, err
	}
	cmd := &exec.Cmd{
		Path:       exe,
		Args:       os.Args, // argv[0] too: a multi-call test binary dispatches on it
		Env:        append(os.Environ(), envCourier+"=1"),
		Stdin:      f, // Stdout, Stderr: /dev/null
		ExtraFiles: files,
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	inv.mu.Lock()
	inv.rec.CourierPID = pid
	inv.mu.Unlock()
	return pid, nil
}

// runCourier is a courier process: its runs on stdin, the descriptors
// from 3 on.
func runCourier(c Combined, stdin *os.File) int {
	return detached(c, stdin, func(inv *Invocation) {
		var runs []courierRun
		if err := json.Unmarshal(inv.Stdin().Data, &runs); err != nil {
			inv.Notef("courier: its runs: %v", err)
			return
		}
		n := 0
		for _, r := range runs {
			n = max(n, r.Lock+1)
			for _, it := range r.Parcel.Items {
				n = max(n, it.Conn+1)
			}
		}
		files := make([]*os.File, n)
		for i := range files {
			files[i] = os.NewFile(uintptr(3+i), "handed-over")
		}
		inv.carry(c, runs, files)
		if store, err := state.Open(os.Getenv, courierStore); err == nil {
			store.Tidy(24*time.Hour, time.Hour) // what couriers killed left
		}
	})
}

// carry does the runs, the surfaces concurrently, each with a log line of
// its own, and closes files.
func (inv *Invocation) carry(c Combined, runs []courierRun, files []*os.File) {
	var wg sync.WaitGroup
	for _, r := range runs {
		i := slices.IndexFunc(c.Surfaces, func(b Binary) bool { return b.Name == r.Parcel.Surface })
		bin := &Binary{Name: r.Parcel.Surface}
		if i >= 0 {
			bin = &c.Surfaces[i]
		}
		sub := inv.child(bin, io.Discard)
		sub.rec.Courier = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				sub.recovered(recover())
				sub.finish()
			}()
			sub.deliverParcel(r.Parcel, files)
			if r.Lock >= 0 && r.Lock < len(files) && files[r.Lock] != nil {
				sub.drainQueue(r.Key, files[r.Lock])
				files[r.Lock] = nil // drainQueue let it go
			}
		}()
	}
	wg.Wait()
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// deliverParcel does a parcel's items in order, and marks its surface late
// when one waited out the budget (or forgets that it was, when all went
// through).
func (inv *Invocation) deliverParcel(p transport.Parcel, files []*os.File) {
	if len(p.Items) == 0 {
		return
	}
	if age := time.Since(time.UnixMilli(p.Time)); age > queueStale {
		inv.Notef("courier: %d request(s) of an event %v old dropped: %s is that far behind", len(p.Items), age.Round(time.Second), p.Surface)
		return
	}
	late, failed := false, false
	for _, it := range p.Items {
		r, reply, err := transport.Carry(inv.Context(), it, files)
		d := delivery{Status: reply.Status, Reply: clipReply(reply.Body)}
		if r != nil {
			d.To = r.Summary()
		}
		if err != nil {
			d.Error = err.Error()
			failed = true
			late = late || errors.Is(err, transport.ErrDeadline) || inv.Context().Err() != nil
		}
		inv.mu.Lock()
		inv.rec.Sent = append(inv.rec.Sent, d)
		inv.mu.Unlock()
	}
	if late || !failed {
		markLate(p.Surface, late)
	}
}

// markLate remembers (or forgets) that surface made a courier wait out its
// budget.
func markLate(surface string, late bool) {
	store, err := state.Open(os.Getenv, courierStore)
	if err != nil {
		return
	}
	if !late {
		store.Remove(surface + ".late")
		return
	}
	store.Write(surface+".late", []byte(fmt.Sprintf("%s did not answer a courier within its budget\n", surface)))
}

// metaWait bounds the wait for a pair's meta lock, held for microseconds
// by whoever looks at its queue.
const metaWait = 50 * time.Millisecond

func metaContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, metaWait)
}
