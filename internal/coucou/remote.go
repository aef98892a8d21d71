package coucou

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/transport"
)

// MaxRemoteBody bounds a line from another machine: the agent's machine
// caps its payload to it (every string is capped well below already).
const MaxRemoteBody = 64 << 10

// remoteDropped are the fields by which a line says which process, window,
// app or terminal it came from: Coucou's apps route a session to a pill and
// bring its window forward by them (docs/reference/focus-fields.md
// lists each with its source). From another machine each would name one of
// this desktop's, chosen by that machine, or nothing; all go, and the
// desktop's own take their place (remoteTerminal). transcript_path names a
// file over there.
var remoteDropped = []string{
	// nb-hook's and the relays' terminal context (the terminal table)
	"term_program", "iterm_session_id", "term_session_id", "bundle_id", "terminal_emulator",
	"wt_session", "vscode_pid", "session_pid", TermEditor,
	// the Windows relay's window and its processes (windows/hook/src/origin.rs)
	"origin_hwnd", "origin_pid", "origin_console_pid",
	// the processes above a relay, by which the Windows app finds the window
	"terminal_pids",
	// what other relays of the same line send for the same purpose
	"origin_tty", "origin_app", "tty", "tmux_pane", "window_id", "pid", "ppid",
	"transcript_path", "transcriptPath",
}

// remoteTerminal is the terminal context of this desktop's own process (the
// terminal that runs hookwire remote, an editor's integrated terminal, or
// nothing for a service), as nb-hook would add it here: what a remote
// session's pill focuses, if anything. Read once: the environment stays.
func remoteTerminal(getenv func(string) string) func() map[string]string {
	return sync.OnceValue(func() map[string]string {
		in := Input{Getenv: getenv}
		own := map[string]string{}
		for _, t := range terminal {
			if v := getenv(t.env); v != "" {
				own[t.field] = v
			}
		}
		if e := termEditor(in); e != "" {
			own[TermEditor] = e
		}
		return own
	})
}

// eventWord is what a line's hook_event_name may be: a name, never a path.
// It is compiled on first use, on the desktop: package init runs in every
// hook, which never checks it.
var eventWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`) })

// Remote is Coucou's side of `hookwire remote`: a line made by nb-hook (or
// hookwire) on another machine goes to this desktop's Coucou socket, after
// it is checked (one JSON object, at most MaxRemoteBody, an event name),
// its session_id is made <host>.<session_id> (two hosts' sessions never
// share a pill's session) and its cwd ends " on <host>" (the pill the app
// names after the project folder, cwd's last element, says where it runs).
// coucou_agent stays only when it is a name the app accepts. Every field
// that names a process, window, app or terminal over there is dropped
// (remoteDropped), and this desktop's own terminal context, if any, takes
// its place: a remote pill focuses the terminal that runs hookwire remote,
// as the Linux app also finds it from the socket's peer. An Ask (a
// permission request, a question the hook waits on) reads the app's answer
// within its WithinMS, at most this desktop's decision timeout.
func Remote(getenv func(string) string) remote.Surface {
	own := remoteTerminal(getenv)
	return func(host string, d remote.Delivery) (remote.Carry, error) {
		if host == "" {
			return remote.Carry{}, errors.New("no host name")
		}
		line, ev, err := remoteLine(host, d.Body, own())
		if err != nil {
			return remote.Carry{}, err
		}
		if d.Event != "" || d.Payload != "" {
			return remote.Carry{}, errors.New("coucou: Pulse's fields in a Coucou delivery")
		}
		path := SocketPath(Where{GOOS: runtime.GOOS, Getenv: getenv, Exists: exists,
			UID: os.Getuid(), TmpDir: os.TempDir(), SID: userSID()})
		send := transport.SocketLine{Path: path, Line: line, ReadReply: true,
			ConnectWithin: connectWithin, MaxReply: maxAnswer}
		c := remote.Carry{Request: send, Event: ev.event, Session: ev.session, Agent: ev.agent}
		if d.Ask == 0 {
			send.ReplyWithin, send.ReplyOptional = ackWithin, true
			c.Request = send
			return c, nil
		}
		if ev.event != "PermissionRequest" && ev.kind != KindAsk {
			return remote.Carry{}, errors.New("coucou: an approval that is neither a permission request nor a question")
		}
		if d.WithinMS <= 0 {
			return remote.Carry{}, errors.New("coucou: an approval with no time to answer it")
		}
		c.Within = min(time.Duration(d.WithinMS)*time.Millisecond, remoteDecisionTimeout(getenv, ev.kind == KindAsk))
		return c, nil
	}
}

// remoteDecisionTimeout is this desktop's: COUCOU_DECISION_TIMEOUT, else
// nb-hook's default.
func remoteDecisionTimeout(getenv func(string) string, question bool) time.Duration {
	if d, err := time.ParseDuration(getenv(EnvDecisionTimeout)); err == nil && d > 0 {
		return d
	}
	if question {
		return DefaultAskTimeout
	}
	return DefaultDecisionTimeout
}

type remoteEvent struct{ event, session, agent, kind string }

// remoteSession is the session a line from another machine names, "unknown"
// for none.
func remoteSession(p map[string]any) (string, error) {
	for _, k := range []string{"session_id", "conversation_id"} {
		if v, set := p[k]; set {
			s, ok := v.(string)
			if !ok {
				return "", errors.New("coucou: a session id that is not a string")
			}
			if s != "" {
				return s, nil
			}
		}
	}
	return "unknown", nil
}

// remoteLine checks a line from another machine, names the host in it, and
// puts this desktop's terminal context (own) in place of the other machine's.
func remoteLine(host string, body []byte, own map[string]string) ([]byte, remoteEvent, error) {
	var ev remoteEvent
	if len(body) > MaxRemoteBody {
		return nil, ev, errors.New("coucou: a line longer than 64 KiB")
	}
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&p) != nil || p == nil || dec.More() {
		return nil, ev, errors.New("coucou: a body that is not one JSON object")
	}
	name, ok := p["hook_event_name"].(string)
	if !ok || !eventWord().MatchString(name) {
		return nil, ev, errors.New("coucou: a line without an event name")
	}
	ev.event = name
	if k, set := p["coucou_kind"]; set {
		if k != KindAsk && k != "statusline" {
			return nil, ev, errors.New("coucou: a coucou_kind the app has none of")
		}
		ev.kind, _ = k.(string)
	}
	if a, set := p["coucou_agent"]; set {
		if s, _ := a.(string); ValidAgent(s) {
			ev.agent = s
		} else {
			delete(p, "coucou_agent")
		}
	}
	sid, err := remoteSession(p)
	if err != nil {
		return nil, ev, err
	}
	ev.session = host + "." + sid
	p["session_id"] = ev.session
	delete(p, "conversation_id")
	cwd, _ := p["cwd"].(string)
	switch {
	case ev.kind == "statusline":
		// The plan-usage line carries nothing of the session but its id
		// (StatusLine): no folder to name a pill after.
	case cwd == "":
		p["cwd"] = host
	default:
		p["cwd"] = cwd + " on " + host
	}
	for _, f := range remoteDropped {
		delete(p, f)
	}
	for k, v := range own {
		p[k] = v
	}
	return encode(p), ev, nil
}
