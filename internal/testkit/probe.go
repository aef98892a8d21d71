package testkit

import (
	"net/http"
	"strings"

	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/transport"
	"github.com/hookwire/hookwire/internal/transport/httpsend"
)

// Probe is a test-only binary that sends one request with the runtime around
// it (deadline, dry-run, debug log), so that the fakes and the transports are
// exercised end to end through a real process:
//
//	probe sock PATH LINE [--reply]
//	probe http URL BODY [--socket PATH] [--header 'K: V']... [--secret K]... [--allow-remote]
//
// It prints the reply it got, as a binary with a reply protocol would.
func Probe() hook.Binary {
	return hook.Binary{Name: "probe", Help: "Send one request (tests only).", CLI: &probeCLI{}}
}

type probeCLI struct {
	Sock probeSock `cmd:"" help:"Write a line to a Unix socket."`
	HTTP probeHTTP `cmd:"" name:"http" help:"Send an HTTP request."`
}

type probeSock struct {
	Path  string `arg:""`
	Line  string `arg:""`
	Reply bool   `help:"Wait for a reply line."`
}

func (c *probeSock) Run(inv *hook.Invocation) error {
	r, err := inv.Send(transport.SocketLine{Path: c.Path, Line: []byte(c.Line), ReadReply: c.Reply, SameUser: true})
	if err == nil && len(r.Body) > 0 {
		inv.Reply(append(r.Body, '\n'))
	}
	return nil
}

type probeHTTP struct {
	URL         string   `arg:""`
	Body        string   `arg:""`
	Socket      string   `help:"Unix socket to connect to."`
	Header      []string `help:"Request header, 'Name: value'."`
	Secret      []string `help:"Header whose value is secret."`
	AllowRemote bool     `help:"Allow a host that is not loopback."`
}

func (c *probeHTTP) Run(inv *hook.Invocation) error {
	h := httpsend.Header{}
	for _, kv := range c.Header {
		k, v, _ := strings.Cut(kv, ":")
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	r, err := inv.Send(httpsend.Request{URL: c.URL, Socket: c.Socket, Header: h, Body: []byte(c.Body),
		Secret: c.Secret, AllowRemote: c.AllowRemote})
	if err == nil && r.Status != 0 {
		inv.Reply([]byte(http.StatusText(r.Status) + " " + string(r.Body) + "\n"))
	}
	return nil
}
