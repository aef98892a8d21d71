package pulse

import (
	"context"
	"errors"
	"strings"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
)

// Remote is Pulse's side of `hookwire remote`: a delivery from another
// machine becomes `noctalia msg plugin <this desktop's target> all <event>
// [payload]`, the argv's shape fixed here. The event is one of Pulse's; the
// payload is the CSV token pulse-claude and pulse-emit write
// (model,in,out,cc,cr,session[,pid]), whose session becomes
// <host>.<session> (two hosts' sessions never share a slot) and whose pid
// is dropped (a remote pid means nothing here). A bare event becomes the
// host's own slot, never the shared default one.
func Remote(getenv func(string) string) remote.Surface {
	return func(host string, d remote.Delivery) (remote.Carry, error) {
		if host == "" {
			return remote.Carry{}, errors.New("no host name")
		}
		if d.Ask != 0 {
			return remote.Carry{}, errors.New("pulse: an approval, which Pulse has no way to answer")
		}
		if !Vocabulary[d.Event] {
			return remote.Carry{}, errors.New("pulse: an event that is not one of Pulse's")
		}
		if d.Body != nil {
			return remote.Carry{}, errors.New("pulse: a body, which Pulse's deliveries have none of")
		}
		payload, session, err := remotePayload(host, d.Payload)
		if err != nil {
			return remote.Carry{}, err
		}
		return remote.Carry{
			Request: here{Dispatch(getenv, d.Event, payload)},
			Event:   d.Event, Session: session,
		}, nil
	}
}

// here is a delivery carried out on this machine, never handed over
// again: not a transport.Crosser, as a Request is.
type here struct{ r Request }

func (h here) Describe() string { return h.r.Describe() }
func (h here) Summary() string  { return h.r.Summary() }
func (h here) Do(ctx context.Context) (transport.Reply, error) {
	return h.r.Do(ctx)
}

// remotePayload checks a payload token and names the host in it.
func remotePayload(host, payload string) (_, session string, _ error) {
	if payload == "" {
		return CSV("?", "0", "0", "0", "0", host), host, nil
	}
	if len(payload) > maxPayload {
		return "", "", errors.New("pulse: a payload longer than Pulse's token")
	}
	f := strings.Split(payload, ",")
	if len(f) != 6 && len(f) != 7 {
		return "", "", errors.New("pulse: a payload that is not model,in,out,cc,cr,session[,pid]")
	}
	for i, v := range f {
		if text.Keep(v, text.Token) != v {
			return "", "", errors.New("pulse: a payload field with characters Pulse's token has none of")
		}
		if 1 <= i && i <= 4 && !number(v) || i == 6 && !number(v) {
			return "", "", errors.New("pulse: a payload whose figures are not numbers")
		}
	}
	if f[5] == "" {
		return "", "", errors.New("pulse: a payload without a session")
	}
	session = host + "." + f[5]
	f[5] = session
	return strings.Join(f[:6], ","), session, nil
}

// maxPayload is far more than a real token: six figures and an id.
const maxPayload = 512

func number(s string) bool {
	return s != "" && len(s) <= 20 && strings.Trim(s, "0123456789") == ""
}
