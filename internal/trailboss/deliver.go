package trailboss

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// The spool keeps what the daemon missed while it was down, so that a daemon
// restart loses no transition: the events are replayed, in order, before the
// next one that reaches it. It is small and short-lived: an event older than
// spoolMaxAge no longer describes the session (the human has long seen the
// pane), and a daemon down for longer has missed more than a spool can mend.
const (
	spoolFile   = "spool"
	spoolMax    = 256
	spoolMaxAge = 10 * time.Minute
)

// now is the clock of event timestamps and spool ages.
var now = time.Now

// Endpoint returns the URL events are POSTed to: TRAILBOSS_DAEMON_URL as
// given, else TRAILBOSS_URL + /event/normalized, else the daemon's fixed
// address. A host that is not this machine is refused unless allowRemote:
// the events name the user's projects and quote the agent.
func Endpoint(getenv func(string) string, allowRemote bool) (string, error) {
	given, from := getenv(EnvDaemonURL), EnvDaemonURL
	endpoint := given
	if given == "" {
		given, from = getenv(EnvURL), EnvURL
		endpoint = strings.TrimRight(given, "/") + EventPath
	}
	if given == "" {
		return DefaultURL + EventPath, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s=%s is not an http:// URL: nothing sent", from, given)
	}
	if !allowRemote && !httpsend.Loopback(u.Hostname()) {
		return "", fmt.Errorf("%s=%s: %s is not this machine: refused (run with --allow-remote to send there)", from, given, u.Hostname())
	}
	return endpoint, nil
}

// noDaemonHere: on Windows, with no URL given, there is no daemon to try.
// Trail Boss's runs beside tmux, and the default address is not worth a
// connect there: Windows takes about 2 s to refuse one on loopback (it
// retries the SYN; libuv/libuv#2896), which the connect budget would cut
// short, a courier carrying on in the background each time.
func noDaemonHere(getenv func(string) string) bool {
	return onWindows && getenv(EnvDaemonURL) == "" && getenv(EnvURL) == ""
}

// onWindows is runtime.GOOS == "windows" (tests set it).
var onWindows = runtime.GOOS == "windows"

// result is what became of one event.
type result int

const (
	sent        result = iota // the daemon took it
	printed                   // a dry run printed it
	kept                      // the daemon was unreachable: spooled
	refused                   // the daemon answered an error: logged, not kept, as it would fail again
	unreachable               // the daemon was unreachable, and the event could not be kept
	handed                    // the daemon was slow: a courier carries the post on (hook's courier.go)
)

// landed reports whether the daemon has the event, or will get it from the spool.
func (r result) landed() bool { return r == sent || r == kept || r == handed }

// daemon sends events to one Trail Boss, through the invocation.
type daemon struct {
	inv         *hook.Invocation
	url         string
	allowRemote bool
	store       *state.Store // nil: no spool
}

// deliver sends e, after whatever the spool holds.
func (d *daemon) deliver(e Event) result {
	body := e.Encode()
	if d.store == nil {
		return d.post(body)
	}
	if fi, err := os.Stat(filepath.Join(d.store.Dir(), spoolFile)); errors.Is(err, fs.ErrNotExist) || err == nil && fi.Size() == 0 {
		// The common case: nothing waits, and no lock is taken.
		if r := d.post(body); r != unreachable {
			return r
		}
		return d.keep(body)
	}

	release, err := d.store.Lock(d.inv.Context(), spoolFile)
	if err != nil {
		// Another hook holds the spool past our deadline (a daemon that
		// hangs): this event cannot wait its turn.
		d.inv.Notef("spool: %v: sending this event alone", err)
		r := d.post(body)
		if r == unreachable {
			d.inv.Notef("spool: busy: the event is lost")
		}
		return r
	}
	defer release()
	waiting := d.load()
	for i, b := range waiting {
		if d.post(b) == unreachable {
			return d.save(append(waiting[i:], body))
		}
	}
	if len(waiting) > 0 && !d.inv.DryRun() {
		d.inv.Notef("spool: replayed %d event(s) the daemon missed", len(waiting))
	}
	r := d.post(body)
	if r == unreachable {
		return d.save([][]byte{body})
	}
	if !d.inv.DryRun() {
		// Emptied rather than removed, as it always was. (Removing would be
		// safe too: state.Store never unlinks a lock file that is held.)
		if err := d.store.Write(spoolFile, nil); err != nil {
			d.inv.Notef("spool: emptying it: %v", err)
		}
	}
	return r
}

// keep adds body to the spool after a failed first attempt.
func (d *daemon) keep(body []byte) result {
	// The send may have used the whole deadline (a hung daemon): the lock is
	// still taken at once when it is free.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	release, err := d.store.Lock(ctx, spoolFile)
	if err != nil {
		d.inv.Notef("spool: %v: the event is lost", err)
		return unreachable
	}
	defer release()
	return d.save(append(d.load(), body))
}

// load reads the spool, dropping what is too old to replay.
func (d *daemon) load() [][]byte {
	b, err := d.store.Read(spoolFile)
	if err != nil {
		d.inv.Notef("spool: %v", err)
	}
	var out [][]byte
	stale := 0
	cutoff := now().Add(-spoolMaxAge).UnixMilli()
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if ts := gjson.GetBytes(line, "timestamp"); ts.Type != gjson.Number || ts.Int() < cutoff {
			stale++
			continue
		}
		out = append(out, line)
	}
	if stale > 0 {
		d.inv.Notef("spool: dropped %d event(s) older than %v, never replayed", stale, spoolMaxAge)
	}
	return out
}

// save writes the spool: the newest spoolMax events. It is called with the
// spool locked.
func (d *daemon) save(events [][]byte) result {
	if d.inv.DryRun() {
		return printed
	}
	if n := len(events) - spoolMax; n > 0 {
		d.inv.Notef("spool: full, dropped the %d oldest event(s)", n)
		events = events[n:]
	}
	if err := d.store.Write(spoolFile, append(bytes.Join(events, []byte("\n")), '\n')); err != nil {
		d.inv.Notef("spool: %v: %d event(s) lost", err, len(events))
		return unreachable
	}
	d.inv.Notef("spool: Trail Boss is unreachable: %d event(s) kept for when it is back", len(events))
	return kept
}

var header = httpsend.Header{"Content-Type": {"application/json"}}

// post sends one event, once.
func (d *daemon) post(body []byte) result {
	// An error is in the log already; what matters here is whether the
	// daemon answered at all.
	reply, err := d.inv.Send(httpsend.Request{URL: d.url, Header: header, Body: body,
		MaxReply: 4 << 10, AllowRemote: d.allowRemote})
	switch {
	case d.inv.DryRun():
		return printed
	case errors.Is(err, transport.ErrHandedOver):
		// The daemon took the connection (or was slow to): the courier
		// reads its answer, or posts the event whole. Not spooled: it
		// would arrive twice.
		return handed
	case reply.Status == 0:
		return unreachable
	case reply.Status == httpsend.StatusOK:
		if !bytes.Equal(bytes.TrimSpace(reply.Body), []byte(`{"ok":true}`)) {
			d.inv.Notef("the daemon answered 200 with %q, not Trail Boss's {\"ok\":true}: is it Trail Boss at %s?",
				clipJS(string(reply.Body), 100), d.url)
		}
		return sent
	}
	d.inv.Notef("Trail Boss refused %s: %d %s (not kept: it would fail again)",
		summary(body), reply.Status, clipJS(string(bytes.TrimSpace(reply.Body)), 200))
	return refused
}

// summary is an event for the log: its fields, with the message's size in
// place of the message (the log never quotes the agent).
func summary(body []byte) string {
	if m := gjson.GetBytes(body, "message"); m.Index > 0 {
		return fmt.Sprintf("%s\"[%d bytes]\"%s", body[:m.Index], len(m.Str), body[m.Index+len(m.Raw):])
	}
	return string(body)
}
