package vpet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sync"

	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/state"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// MaxRemoteBody bounds an envelope from another machine: its texts are
// clipped to a few hundred characters each already.
const MaxRemoteBody = 16 << 10

// sourceWord is what an envelope's source may be: a product id.
// It is compiled on first use, on the desktop: package init runs in every
// hook, which never checks it.
var sourceWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Remote is VPet's side of `hookwire remote`: an envelope made by
// vpet-notify (or hookwire) on another machine, without a token, is checked
// against the sink's own shape (v 1, one of its events, only the whitelist's
// keys, every text within its limit), its session_key made
// <host>.<key> (two hosts' runs never share one), its agent_name made
// "<name> on <host>", its transport's ppid 0 and its tty this desktop's own
// (the terminal that runs hookwire remote, as vpet-notify would name it here,
// or none): the remote's pid and terminal would name one of this desktop's.
// It is POSTed to this desktop's sink with this
// desktop's token, which never leaves the desktop. This desktop's
// VPET_NOTIFY_EVENTS applies; a pet that is not running costs nothing (no
// token file appears), as for vpet-notify.
func Remote(getenv func(string) string) remote.Surface {
	ownTTY := sync.OnceValue(func() string { return TTY(getenv) })
	return func(host string, d remote.Delivery) (remote.Carry, error) {
		if host == "" {
			return remote.Carry{}, errors.New("no host name")
		}
		if d.Event != "" || d.Payload != "" || d.Ask != 0 {
			return remote.Carry{}, errors.New("vpet: fields a VPet delivery has none of")
		}
		e, err := remoteEnvelope(host, d.Body, ownTTY())
		if err != nil {
			return remote.Carry{}, err
		}
		c := remote.Carry{Event: e.Event, Session: e.SessionKey, Agent: e.Source}
		if sw, _ := ParseSwitches(getenv(EnvEvents)); !sw.On(e.Event) {
			return c, fmt.Errorf("%w: %s is switched off here (%s)", remote.ErrSkip, e.Event, EnvEvents)
		}
		socket := SocketPath(getenv, runtime.GOOS, "")
		if socket == "" {
			return c, fmt.Errorf("%w: no VPet socket here: set %s", remote.ErrSkip, EnvSocket)
		}
		if _, err := os.Stat(socket); errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("%w: no VPet socket at %s: the pet is not running", remote.ErrSkip, socket)
		}
		body, err := e.Encode()
		if err != nil {
			return c, errors.New("vpet: an envelope that does not encode")
		}
		header := httpsend.Header{"Content-Type": {"application/json"}}
		ctx, cancel := context.WithTimeout(context.Background(), lockBudget)
		defer cancel()
		tok, err := ResolveToken(TokenOptions{Getenv: getenv, File: TokenFile(getenv, "", socket), Create: true,
			Lock: remoteTokenLock(getenv), Ctx: ctx})
		if err == nil {
			header.Set("Authorization", "Bearer "+tok.Value)
		}
		c.Request = httpsend.Request{URL: URL, Socket: socket, Header: header, Body: body,
			Secret: []string{"Authorization"}, MaxReply: -1}
		c.Within = DeliveryBudget
		return c, nil
	}
}

// remoteTokenLock is tokenLock for a process that is no hook.
func remoteTokenLock(getenv func(string) string) func(ctx context.Context) (func(), error) {
	return func(ctx context.Context) (func(), error) {
		store, err := state.Open(getenv, "vpet-notify")
		if err != nil {
			return nil, err
		}
		return store.Lock(ctx, "token")
	}
}

// remoteEnvelope checks an envelope from another machine, names the host
// in it, and gives it this desktop's terminal (tty) in place of the other
// machine's.
func remoteEnvelope(host string, body []byte, tty string) (*Envelope, error) {
	if len(body) > MaxRemoteBody {
		return nil, errors.New("vpet: an envelope longer than 16 KiB")
	}
	var e Envelope
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields() // the whitelist: a key not in it is refused
	if err := dec.Decode(&e); err != nil || dec.More() {
		return nil, errors.New("vpet: a body that is not one envelope of the sink's keys")
	}
	switch {
	case e.V != 1:
		return nil, errors.New("vpet: an envelope version other than 1")
	case !slices.Contains(Events, e.Event):
		return nil, errors.New("vpet: an event that is not one of the sink's")
	case !sourceWord().MatchString(e.Source):
		return nil, errors.New("vpet: a source that is not a product id")
	case e.SessionKey == "" || len(e.SessionKey) > 200 || !utf8.ValidString(e.SessionKey):
		return nil, errors.New("vpet: a session key that is empty or too long")
	case e.TS < 0:
		return nil, errors.New("vpet: a time before 1970")
	}
	p := &e.Payload
	for _, f := range []struct {
		s   string
		max int
	}{
		{p.Title, 40}, {p.AgentName, 200}, {p.ToolName, 200}, {p.ToolCallID, 200},
		{p.Preview, PreviewLimit + 1}, {p.Prompt, TextLimit + 1}, {p.Answer, TextLimit + 1},
		{p.Reason, 200}, {p.Error, ErrorLimit + 1}, {e.Transport.Cwd, 4096}, {e.Source, 64},
	} {
		if utf8.RuneCountInString(f.s) > f.max || !utf8.ValidString(f.s) {
			return nil, errors.New("vpet: a text longer than the sink's limit")
		}
	}
	for _, s := range []*Seconds{p.AnsweredAt, p.DurationSeconds} {
		if s != nil && *s < 0 {
			return nil, errors.New("vpet: a negative time")
		}
	}
	e.SessionKey = host + "." + e.SessionKey
	if p.AgentName != "" {
		p.AgentName += " on " + host
	}
	e.Transport.PPID, e.Transport.TTY = 0, tty
	return &e, nil
}
