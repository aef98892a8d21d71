package testkit

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// TrailBoss models the Trail Boss daemon (jedarden/trail-boss daemon/index.ts,
// db.ts, schema.sql; docs/reference/trailboss-vpet-coral.md §1): its
// SQLite tables in memory, and its answers, so that tests assert on the
// queue a hook's events leave behind and not only on their bytes.
//
// It is as strict as the real daemon, and no more lenient:
//   - a body that is not JSON: 400 {"error":"Invalid JSON"};
//   - a type other than stuck, unstuck, registered, ended:
//     400 {"error":"Missing or invalid event type"} (the code's wording; the
//     docs say "Invalid or missing event type");
//   - anything SQLite or bun:sqlite refuses: 500 {"error":"Internal server
//     error"}, after what the statements before it already did (the daemon
//     uses no transaction). That is a stuck or registered event whose
//     sessionId, paneId, cwd or transcriptPath is null or absent (NOT NULL
//     columns), a stuck without reason or timestamp (queue columns NOT
//     NULL), any field that is an object or an array (bun:sqlite binds
//     none), and deleting a pane's bootstrap session that queue rows still
//     reference (foreign keys are on).
//
// A value bound to a TEXT column is stored as SQLite would: a number as its
// text, true and false as 1 and 0. An absent value binds as NULL [inference:
// bun:sqlite's handling of undefined is not documented]. Where the real
// daemon's behaviour is unknown (a body that is JSON but not an object),
// the model refuses, so that a hook cannot come to rely on leniency.
type TrailBoss struct {
	mu       sync.Mutex
	sessions map[string]*tbSession
	queue    []*tbRow // in id order
	nextID   int
	// Events, when set, receives each /event/normalized body as a line.
	Events io.Writer
}

type tbSession struct {
	ID, Pane, Cwd, Transcript string
	LastStuckAt               any
	LastReason, LastMessage   *string
}

type tbRow struct {
	ID        int
	Session   string
	StuckAt   any // a number, or text SQLite could not make one of
	Reason    string
	Cooldown  *int64
	Dequeued  *int64
	CreatedAt int64
}

// NewTrailBoss returns an empty daemon.
func NewTrailBoss() *TrailBoss {
	return &TrailBoss{sessions: map[string]*tbSession{}, nextID: 1}
}

var errSQL = errors.New("sqlite refused")

// Answer answers one request as the daemon does.
func (tb *TrailBoss) Answer(method, path string, body []byte) (status int, reply string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch {
	case method == http.MethodPost && path == "/event/normalized":
		if tb.Events != nil {
			tb.Events.Write(append(msPlaceholder(body), '\n'))
		}
		return tb.normalized(body)
	case method == http.MethodGet && path == "/queue":
		b, _ := json.Marshal(tb.queueView())
		return 200, string(b)
	case method == http.MethodGet && path == "/status":
		return 200, `{"status":"ok","stuckCount":` + strconv.Itoa(len(tb.stuck())) + `}`
	}
	return 404, `{"error":"Not found"}`
}

// ServeHTTP makes the daemon an http.Handler, for tests outside testscript.
func (tb *TrailBoss) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	status, reply := tb.Answer(r.Method, r.URL.Path, body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, reply)
}

func (tb *TrailBoss) normalized(body []byte) (int, string) {
	if !gjson.ValidBytes(body) {
		return 400, `{"error":"Invalid JSON"}`
	}
	ev := gjson.ParseBytes(body)
	typ := ev.Get("type")
	if !ev.IsObject() || typ.Type != gjson.String || !slices.Contains([]string{"stuck", "unstuck", "registered", "ended"}, typ.Str) {
		return 400, `{"error":"Missing or invalid event type"}`
	}
	if err := tb.apply(typ.Str, ev); err != nil {
		return 500, `{"error":"Internal server error"}`
	}
	return 200, `{"ok":true}`
}

// apply runs the daemon's statements for one event, in its order: a value
// is refused when the statement that binds it runs.
func (tb *TrailBoss) apply(typ string, ev gjson.Result) error {
	sid, sidErr := sqlText(ev.Get("sessionId"))
	switch typ {
	case "unstuck", "ended":
		if sidErr != nil {
			return sidErr
		}
		if sid != nil && typ == "unstuck" {
			tb.dequeue(*sid)
		} else if sid != nil {
			tb.deleteSession(*sid)
		}
		return nil
	}
	var cols [3]*string
	var errs [6]error
	for i, k := range []string{"paneId", "cwd", "transcriptPath"} {
		cols[i], errs[i] = sqlText(ev.Get(k))
	}
	reason, message, stuckAt := (*string)(nil), (*string)(nil), any(nil)
	if typ == "stuck" {
		reason, errs[3] = sqlText(ev.Get("reason"))
		message, errs[4] = sqlText(ev.Get("message"))
		stuckAt, errs[5] = sqlInteger(ev.Get("timestamp"))
		// Clean up the pane's bootstrap session (session id == pane id) first.
		if sidErr != nil || errs[0] != nil {
			return errSQL
		}
		if pane := cols[0]; pane != nil && sid != nil && *pane != *sid {
			if err := tb.dropBootstrap(*pane); err != nil {
				return err
			}
		}
	}
	if err := errors.Join(append([]error{sidErr}, errs[:]...)...); err != nil {
		return err
	}
	if err := tb.upsert(sid, cols, stuckAt, reason, message); err != nil {
		return err
	}
	if typ == "registered" {
		return nil
	}
	if sid == nil {
		return errSQL // queue.session_id is NOT NULL
	}
	return tb.enqueue(*sid, reason, stuckAt)
}

// upsertSession: INSERT … ON CONFLICT (session_id) DO UPDATE, the stuck
// fields COALESCEd with the old ones.
func (tb *TrailBoss) upsert(sid *string, cols [3]*string, stuckAt any, reason, message *string) error {
	for _, c := range cols {
		if c == nil {
			return errSQL // NOT NULL
		}
	}
	if sid == nil {
		// SQLite allows a NULL TEXT PRIMARY KEY: the row is a junk one
		// that nothing finds again.
		return nil
	}
	s := tb.sessions[*sid]
	if s == nil {
		s = &tbSession{ID: *sid}
		tb.sessions[*sid] = s
	}
	s.Pane, s.Cwd, s.Transcript = *cols[0], *cols[1], *cols[2]
	if stuckAt != nil {
		s.LastStuckAt = stuckAt
	}
	if reason != nil {
		s.LastReason = reason
	}
	if message != nil {
		s.LastMessage = message
	}
	return nil
}

// enqueue: update the session's live row (a new stuck_at moves it to the
// back of the FIFO), or insert one.
func (tb *TrailBoss) enqueue(sid string, reason *string, stuckAt any) error {
	if reason == nil || stuckAt == nil {
		return errSQL // NOT NULL
	}
	for _, r := range tb.queue {
		if r.Session == sid && r.Dequeued == nil {
			r.Reason, r.StuckAt, r.Cooldown = *reason, stuckAt, nil
			return nil
		}
	}
	tb.queue = append(tb.queue, &tbRow{ID: tb.nextID, Session: sid, StuckAt: stuckAt, Reason: *reason, CreatedAt: time.Now().UnixMilli()})
	tb.nextID++
	return nil
}

func (tb *TrailBoss) dequeue(sid string) {
	now := time.Now().UnixMilli()
	for _, r := range tb.queue {
		if r.Session == sid && r.Dequeued == nil {
			r.Dequeued = &now
		}
	}
}

// dropBootstrap is dequeueByPaneId: dequeue the pane's bootstrap rows, then
// delete its session, which a queue row still referencing refuses.
func (tb *TrailBoss) dropBootstrap(pane string) error {
	tb.dequeue(pane)
	if tb.sessions[pane] == nil {
		return nil
	}
	for _, r := range tb.queue {
		if r.Session == pane {
			return errSQL // FOREIGN KEY constraint failed
		}
	}
	delete(tb.sessions, pane)
	return nil
}

// Reconcile is one sweep of the daemon's reconcile loop (daemon/reconcile.ts,
// every 5 s): a session stuck at last_stuck_at is dequeued when any of the
// last 5 lines of its transcript is an entry newer than that, whose type or
// message.role is "user" or "assistant" (hasTranscriptAdvanced: the person
// answered in the pane, or the agent went on). A transcript that cannot be
// read dequeues nothing. It returns the sessions dequeued.
func (tb *TrailBoss) Reconcile() (dequeued []string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(tb.sessions)) {
		s := tb.sessions[id]
		at, ok := s.LastStuckAt.(float64)
		if !ok || at == 0 {
			continue
		}
		if transcriptAdvanced(s.Transcript, at) {
			tb.dequeue(id)
			dequeued = append(dequeued, id)
		}
	}
	return dequeued
}

func transcriptAdvanced(path string, lastStuckAt float64) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, line := range lines[max(0, len(lines)-5):] {
		if !gjson.Valid(line) {
			continue // a torn or malformed line
		}
		e := gjson.Parse(line)
		var t float64
		switch ts := e.Get("timestamp"); ts.Type {
		case gjson.Number:
			t = ts.Num
		case gjson.String:
			if parsed, err := time.Parse(time.RFC3339Nano, ts.Str); err == nil {
				t = float64(parsed.UnixMilli())
			}
		}
		if t <= lastStuckAt {
			continue
		}
		typ, role := e.Get("type").Str, e.Get("message.role").Str
		if typ == "user" || role == "user" || typ == "assistant" || role == "assistant" {
			return true
		}
	}
	return false
}

func (tb *TrailBoss) deleteSession(sid string) {
	tb.queue = slices.DeleteFunc(tb.queue, func(r *tbRow) bool { return r.Session == sid })
	delete(tb.sessions, sid)
}

// sqlText binds a JSON value to a TEXT column.
func sqlText(v gjson.Result) (*string, error) {
	var s string
	switch v.Type {
	case gjson.Null:
		return nil, nil // absent or null
	case gjson.String:
		s = v.Str
	case gjson.Number:
		s = v.Raw
	case gjson.True:
		s = "1"
	case gjson.False:
		s = "0"
	default:
		return nil, errSQL // an object or an array
	}
	return &s, nil
}

// sqlInteger binds a JSON value to an INTEGER column: numbers and numeric
// text become numbers, other text stays text.
func sqlInteger(v gjson.Result) (any, error) {
	switch v.Type {
	case gjson.Null:
		return nil, nil
	case gjson.Number:
		return v.Num, nil
	case gjson.String:
		if n, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64); err == nil {
			return n, nil
		}
		return v.Str, nil
	case gjson.True:
		return float64(1), nil
	case gjson.False:
		return float64(0), nil
	}
	return nil, errSQL
}

// stuck is getAllStuck: the live rows out of their skip cooldown, in FIFO
// order (stuck_at ascending; SQLite sorts numbers before text).
func (tb *TrailBoss) stuck() []*tbRow {
	now := time.Now().UnixMilli()
	var out []*tbRow
	for _, r := range tb.queue {
		if r.Dequeued == nil && (r.Cooldown == nil || *r.Cooldown < now) && tb.sessions[r.Session] != nil {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *tbRow) int { return compareSQL(a.StuckAt, b.StuckAt) })
	return out
}

func compareSQL(a, b any) int {
	x, xn := a.(float64)
	y, yn := b.(float64)
	switch {
	case xn && yn:
		return cmpFloat(x, y)
	case xn:
		return -1
	case yn:
		return 1
	}
	return strings.Compare(a.(string), b.(string))
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

type queueItem struct {
	ID                int     `json:"id"`
	SessionID         string  `json:"session_id"`
	PaneID            string  `json:"pane_id"`
	Cwd               string  `json:"cwd"`
	Reason            string  `json:"reason"`
	LastMessage       *string `json:"last_message"`
	StuckAt           any     `json:"stuck_at"`
	SkipCooldownUntil *int64  `json:"skip_cooldown_until"`
}

// queueView is GET /queue's body.
func (tb *TrailBoss) queueView() map[string]any {
	items := []queueItem{}
	for _, r := range tb.stuck() {
		if len(items) == 50 {
			break
		}
		s := tb.sessions[r.Session]
		items = append(items, queueItem{ID: r.ID, SessionID: r.Session, PaneID: s.Pane, Cwd: s.Cwd,
			Reason: r.Reason, LastMessage: s.LastMessage, StuckAt: jsonNumber(r.StuckAt), SkipCooldownUntil: r.Cooldown})
	}
	return map[string]any{"items": items, "count": len(items)}
}

func jsonNumber(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}

var timestampRE = regexp.MustCompile(`"timestamp":(\d+)`)

// msPlaceholder replaces a "timestamp" that is Unix milliseconds within 15
// minutes of now by <ms>, so that a golden file can hold the rest of the
// bytes exactly. A time in seconds, or a wrong one, stays as it was, and
// fails the comparison.
func msPlaceholder(body []byte) []byte {
	return timestampRE.ReplaceAllFunc(body, func(m []byte) []byte {
		if recentMS(string(m[len(`"timestamp":`):])) {
			return []byte(`"timestamp":<ms>`)
		}
		return m
	})
}

func recentMS(digits string) bool {
	n, err := strconv.ParseInt(digits, 10, 64)
	d := time.Duration(time.Now().UnixMilli()-n) * time.Millisecond
	return err == nil && d < 15*time.Minute && d > -15*time.Minute
}

var eventTimeRE = regexp.MustCompile(`"coucou_event_time_us":(\d+)`)

// usPlaceholder replaces a "coucou_event_time_us" (the Coucou relay's clock,
// which the app's auto-quit orders events by) that is Unix microseconds
// within 15 minutes of now by "<us>". A time in another unit, or a wrong
// one, stays as it was, and fails the comparison.
func usPlaceholder(line []byte) []byte {
	return eventTimeRE.ReplaceAllFunc(line, func(m []byte) []byte {
		n, err := strconv.ParseInt(string(m[len(`"coucou_event_time_us":`):]), 10, 64)
		if d := time.Duration(time.Now().UnixMicro()-n) * time.Microsecond; err == nil && d < 15*time.Minute && d > -15*time.Minute {
			return []byte(`"coucou_event_time_us":"<us>"`)
		}
		return m
	})
}

var (
	trailbossesMu sync.Mutex
	trailbosses   = map[*testscript.TestScript]map[string]*tbFake{}
)

// tbFake is one script's daemon: its state outlives its listener, as the
// real daemon's SQLite file outlives a restart.
type tbFake struct {
	tb      *TrailBoss
	addr    string
	records int
	events  *os.File
}

// cmdFakeTrailBoss: fake-trailboss NAME [MODE...] starts the modelled
// daemon (a fake-http whose answers are the daemon's), or restarts it after
// fake-stop on the same address with the same state.
func cmdFakeTrailBoss(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fake-trailboss NAME [mode...]")
	}
	name := args[0]
	trailbossesMu.Lock()
	if trailbosses[ts] == nil {
		trailbosses[ts] = map[string]*tbFake{}
	}
	d := trailbosses[ts][name]
	if d == nil {
		events, err := os.OpenFile(ts.MkAbs(name+".events"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			trailbossesMu.Unlock()
			ts.Fatalf("%v", err)
		}
		d = &tbFake{tb: NewTrailBoss(), addr: "127.0.0.1:0", events: events}
		d.tb.Events = events
		trailbosses[ts][name] = d
		ts.Defer(func() {
			events.Close()
			trailbossesMu.Lock()
			delete(trailbosses[ts], name)
			trailbossesMu.Unlock()
		})
	} else if old := runningFake(ts, name); old != nil {
		select {
		case <-old.quit:
		default:
			trailbossesMu.Unlock()
			ts.Fatalf("%s is running: fake-stop it first", name)
		}
		old.mu.Lock()
		d.records = old.records
		old.mu.Unlock()
	}
	trailbossesMu.Unlock()

	f := startWith(ts, name, "tcp", d.addr, true, args[1:], func(f *fake) {
		f.records = d.records
		f.respond = func(req *http.Request, body []byte) (int, string) {
			return d.tb.Answer(req.Method, req.URL.Path, body)
		}
	})
	d.addr = f.ln.Addr().String()
	env := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	ts.Setenv(env+"_ADDR", d.addr)
	ts.Setenv(env+"_URL", "http://"+d.addr)
}

func runningFake(ts *testscript.TestScript, name string) *fake {
	fakesMu.Lock()
	defer fakesMu.Unlock()
	return fakes[ts][name]
}

func trailbossNamed(ts *testscript.TestScript, name string) *TrailBoss {
	trailbossesMu.Lock()
	defer trailbossesMu.Unlock()
	d := trailbosses[ts][name]
	if d == nil {
		ts.Fatalf("no fake-trailboss named %q", name)
	}
	return d.tb
}

// cmdTrailBossQueue: trailboss-queue NAME FILE writes the queue, as GET
// /queue returns it, to FILE. A stuck_at that is Unix milliseconds of about
// now reads "<ms>".
func cmdTrailBossQueue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: trailboss-queue NAME FILE")
	}
	tb := trailbossNamed(ts, args[0])
	tb.mu.Lock()
	view := tb.queueView()
	for i, it := range view["items"].([]queueItem) {
		if n, ok := it.StuckAt.(int64); ok && recentMS(strconv.FormatInt(n, 10)) {
			view["items"].([]queueItem)[i].StuckAt = "<ms>"
		}
	}
	tb.mu.Unlock()
	writeJSON(ts, args[1], view)
}

// cmdTrailBossReconcile: trailboss-reconcile NAME FILE runs one sweep of the
// daemon's reconcile loop (TrailBoss.Reconcile) and writes the sessions it
// dequeued to FILE, one a line.
func cmdTrailBossReconcile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: trailboss-reconcile NAME FILE")
	}
	var b strings.Builder
	for _, id := range trailbossNamed(ts, args[0]).Reconcile() {
		b.WriteString(id + "\n")
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// cmdTrailBossSessions: trailboss-sessions NAME FILE writes the sessions
// table to FILE, by session id: what registered, stuck and ended left.
func cmdTrailBossSessions(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: trailboss-sessions NAME FILE")
	}
	tb := trailbossNamed(ts, args[0])
	type row struct {
		SessionID      string  `json:"session_id"`
		PaneID         string  `json:"pane_id"`
		Cwd            string  `json:"cwd"`
		TranscriptPath string  `json:"transcript_path"`
		LastStuckAt    any     `json:"last_stuck_at"`
		LastReason     *string `json:"last_stuck_reason"`
		LastMessage    *string `json:"last_message"`
	}
	tb.mu.Lock()
	rows := []row{}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for k := range tb.sessions {
			if !yield(k) {
				return
			}
		}
	}) {
		s := tb.sessions[id]
		at := jsonNumber(s.LastStuckAt)
		if n, ok := at.(int64); ok && recentMS(strconv.FormatInt(n, 10)) {
			at = "<ms>"
		}
		rows = append(rows, row{s.ID, s.Pane, s.Cwd, s.Transcript, at, s.LastReason, s.LastMessage})
	}
	tb.mu.Unlock()
	writeJSON(ts, args[1], rows)
}

// writeJSON writes v indented, "<ms>" as is.
func writeJSON(ts *testscript.TestScript, name string, v any) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	if err := os.WriteFile(ts.MkAbs(name), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// cmdRepeat: repeat DST N TEXT appends TEXT to DST N times, for a line
// larger than a reader's window without a huge golden file.
func cmdRepeat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: repeat DST N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 {
		ts.Fatalf("repeat: bad count %q", args[1])
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Repeat(args[2], n)); err != nil {
		ts.Fatalf("%v", err)
	}
}
