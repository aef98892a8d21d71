// Package httpsend delivers one HTTP request to a local daemon, over TCP
// loopback or over a Unix socket. It is separate from package transport so
// that binaries which never speak HTTP do not link (and initialize) net/http.
package httpsend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hookwire/hookwire/internal/transport"
)

// Request is one HTTP request to a local daemon, over TCP or over a Unix socket.
type Request struct {
	Method string // default POST
	URL    string
	// Socket, when set, is the Unix socket to connect to; the URL then only
	// supplies the path and the Host header.
	Socket string
	Header http.Header
	Body   []byte
	// Secret names the headers whose values never leave this process except
	// on the wire: Describe and Summary print them as <redacted>.
	Secret []string
	// MaxReply bounds the response body kept; zero means 64 KiB. A negative
	// value means the body is not read at all: for a protocol whose reply
	// body is not part of the contract, a slow body must not cost a wait.
	MaxReply int
	// AllowRemote permits a host that is not loopback. Only a user's explicit
	// configuration may set it.
	AllowRemote bool
}

// UserAgent is sent unless the request sets its own.
const UserAgent = "hookwire"

// ErrNotLoopback refuses a request to another machine that the user did not ask for.
var ErrNotLoopback = errors.New("host is not loopback")

func (h Request) method() string { return transport.OrDefault(h.Method, http.MethodPost) }

// where is the URL as printed (a password in it masked), and the socket.
func (h Request) where() string {
	shown := h.URL
	if u, err := url.Parse(h.URL); err == nil && u.User != nil {
		shown = u.Redacted()
	}
	if h.Socket != "" {
		return shown + " via unix:" + h.Socket
	}
	return shown
}

// Describe is the request line, the headers (sorted, secrets redacted), a
// blank line and the body.
func (h Request) Describe() string {
	var b strings.Builder
	b.WriteString(h.method() + " " + h.where() + "\n")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h.Header {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, v := range h.Header[k] {
			b.WriteString(k + ": " + h.redact(k, v) + "\n")
		}
	}
	b.WriteString("\n")
	b.Write(h.Body)
	return b.String()
}

func (h Request) redact(name, value string) string {
	for _, s := range h.Secret {
		if http.CanonicalHeaderKey(s) == http.CanonicalHeaderKey(name) {
			if scheme, _, ok := strings.Cut(value, " "); ok && strings.EqualFold(scheme, "Bearer") {
				return scheme + " <redacted>"
			}
			return "<redacted>"
		}
	}
	return value
}

// Summary is the method, URL and body size.
func (h Request) Summary() string {
	return fmt.Sprintf("%s %s (%d bytes)", h.method(), h.where(), len(h.Body))
}

// Do sends the request and reads a bounded response. Redirects are not
// followed and no proxy is used: the target is on this machine.
func (h Request) Do(ctx context.Context) (transport.Reply, error) {
	u, err := url.Parse(h.URL)
	if err != nil {
		return transport.Reply{}, err
	}
	if h.Socket == "" && !h.AllowRemote && !Loopback(u.Hostname()) {
		return transport.Reply{}, fmt.Errorf("%s: %w (set it explicitly to allow it)", u.Host, ErrNotLoopback)
	}
	dial := (&net.Dialer{}).DialContext
	if h.Socket != "" {
		dial = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return transport.DialLocal(ctx, h.Socket, transport.DefaultConnect)
		}
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		DisableKeepAlives:      true,
		DisableCompression:     true,
		MaxResponseHeaderBytes: 16 << 10,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, h.method(), h.URL, bytes.NewReader(h.Body))
	if err != nil {
		return transport.Reply{}, err
	}
	for k, vs := range h.Header {
		req.Header[k] = vs
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", UserAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return transport.Reply{}, transport.DeadlineErr(ctx, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if h.MaxReply < 0 {
		return transport.Reply{Status: resp.StatusCode}, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(transport.OrDefault(h.MaxReply, 64<<10))))
	reply := transport.Reply{Status: resp.StatusCode, Body: body}
	if err != nil {
		return reply, fmt.Errorf("reading the response: %w", transport.DeadlineErr(ctx, err))
	}
	return reply, nil
}

// unwrapURLError drops net/http's "Post \"url\": " prefix; the log already
// says where the request went.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Loopback reports whether host names this machine: localhost or a loopback
// address. Other names are not resolved: a name that resolves to loopback
// today may not tomorrow.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
