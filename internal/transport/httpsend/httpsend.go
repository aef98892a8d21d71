// Package httpsend delivers one HTTP request to a local daemon, over TCP
// loopback or over a Unix socket. It is separate from package transport so
// that binaries which never speak HTTP do not link (and initialize) net/http.
package httpsend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookwire/hookwire/internal/text"
	"github.com/hookwire/hookwire/internal/transport"
)

// Header is a request's header fields, as net/http's Header.
type Header map[string][]string

// Set replaces the values of a field (its name made canonical).
func (h Header) Set(name, value string) { h[textproto.CanonicalMIMEHeaderKey(name)] = []string{value} }

// Add adds a value to a field (its name made canonical).
func (h Header) Add(name, value string) {
	k := textproto.CanonicalMIMEHeaderKey(name)
	h[k] = append(h[k], value)
}

// Status codes the binaries tell apart.
const (
	StatusOK           = 200
	StatusUnauthorized = 401
)

// Request is one HTTP request to a local daemon, over TCP or over a Unix socket.
type Request struct {
	Method string // default POST
	URL    string
	// Socket, when set, is the Unix socket to connect to; the URL then only
	// supplies the path and the Host header.
	Socket string
	Header Header
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

func (h Request) method() string { return transport.OrDefault(h.Method, "POST") }

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
		if textproto.CanonicalMIMEHeaderKey(s) == textproto.CanonicalMIMEHeaderKey(name) {
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
//
// It speaks HTTP/1.1 itself, one request per connection, rather than through
// net/http: linking net/http (and crypto/tls with it) costs every run of a
// binary about 0.7 ms of CPU and 3.5 MB, for a client that needs a tenth of
// it. The request's bytes are the ones net/http would send (Host, User-Agent,
// Content-Length, the other headers sorted, Connection: close).
func (h Request) Do(ctx context.Context) (transport.Reply, error) {
	u, err := url.Parse(h.URL)
	if err != nil {
		return transport.Reply{}, err
	}
	if u.Scheme != "http" {
		return transport.Reply{}, fmt.Errorf("%s: %w", h.URL, ErrScheme)
	}
	if h.Socket == "" && !h.AllowRemote && !Loopback(u.Hostname()) {
		return transport.Reply{}, fmt.Errorf("%s: %w (set it explicitly to allow it)", u.Host, ErrNotLoopback)
	}
	req, err := h.wire(u)
	if err != nil {
		return transport.Reply{}, err
	}
	if transport.Queued(ctx, h) {
		return transport.Reply{}, transport.ErrHandedOver
	}
	conn, err := h.dial(ctx, u)
	if err != nil {
		if transport.HandedOver(ctx, h, nil, nil) {
			return transport.Reply{}, transport.ErrHandedOver
		}
		return transport.Reply{}, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	return h.Resume(ctx, conn, req)
}

func init() { transport.RegisterKind[Request]("http") }

// Kind names Request for the courier (transport's late.go).
func (h Request) Kind() string { return "http" }

// Resume writes rest (the request, or what is left of it) on conn and
// reads the response: Do's steps once connected, and the courier's.
func (h Request) Resume(ctx context.Context, conn net.Conn, rest []byte) (transport.Reply, error) {
	if n, err := transport.WriteRest(conn, rest); err != nil {
		if transport.HandedOver(ctx, h, conn, rest[n:]) {
			return transport.Reply{}, transport.ErrHandedOver
		}
		return transport.Reply{}, transport.DeadlineErr(ctx, err)
	}
	r := bufio.NewReader(conn)
	status, length, chunked, err := readHead(r)
	if err != nil {
		if r.Buffered() == 0 && transport.HandedOver(ctx, h, conn, nil) {
			return transport.Reply{}, transport.ErrHandedOver
		}
		return transport.Reply{}, transport.DeadlineErr(ctx, err)
	}
	reply := transport.Reply{Status: status}
	if h.MaxReply < 0 || status == 204 || status == 304 || h.method() == "HEAD" {
		return reply, nil
	}
	reply.Body, err = h.readBody(r, length, chunked)
	if err != nil {
		return reply, fmt.Errorf("reading the response: %w", transport.DeadlineErr(ctx, err))
	}
	return reply, nil
}

// readBody reads a response's body, up to MaxReply (64 KiB by default):
// chunked, of a Content-Length (short is an error), or to the end.
func (h Request) readBody(r *bufio.Reader, length int64, chunked bool) ([]byte, error) {
	limit := int64(transport.OrDefault(h.MaxReply, 64<<10))
	var body io.Reader = r
	switch {
	case chunked:
		body = &chunkReader{r: r}
	case length >= 0:
		body = io.LimitReader(r, length)
	}
	b, err := io.ReadAll(io.LimitReader(body, limit))
	if err == nil && length >= 0 && !chunked && int64(len(b)) < min(length, limit) {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// dial connects to the request's socket, else to its URL's host, and checks
// who answered before a byte is sent: a socket's peer, or whoever listens on
// a loopback port, must be this user (a remote host the user named is the
// user's choice, and is not checked).
func (h Request) dial(ctx context.Context, u *url.URL) (net.Conn, error) {
	if h.Socket != "" {
		conn, err := transport.DialLocal(ctx, h.Socket, transport.DefaultConnect) // the peer's user checked
		if err != nil {
			return nil, transport.DeadlineErr(ctx, err)
		}
		return conn, nil
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, transport.DeadlineErr(ctx, err)
	}
	if err := transport.CheckListener(conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// ErrScheme refuses a URL that is not plain http: a daemon on this machine
// needs no TLS.
var ErrScheme = errors.New("only http:// is supported")

// wire is the request as sent, in net/http's order. A header that would not
// stay on its line is refused, as net/http refuses it.
func (h Request) wire(u *url.URL) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(h.method() + " " + u.RequestURI() + " HTTP/1.1\r\n")
	b.WriteString("Host: " + u.Host + "\r\n")
	ua := UserAgent
	if v := h.get("User-Agent"); v != "" {
		ua = v
	}
	field := func(k, v string) error {
		if !valid(k, false) || k == "" {
			return fmt.Errorf("invalid header field name %q", k)
		}
		if !valid(v, true) {
			return fmt.Errorf("invalid header field value for %q", k)
		}
		b.WriteString(k + ": " + strings.TrimSpace(v) + "\r\n")
		return nil
	}
	if err := field("User-Agent", ua); err != nil {
		return nil, err
	}
	if m := h.method(); len(h.Body) > 0 || m == "POST" || m == "PUT" || m == "PATCH" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(h.Body)) + "\r\n")
	}
	keys := make([]string, 0, len(h.Header))
	for k := range h.Header {
		switch textproto.CanonicalMIMEHeaderKey(k) {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer", "Connection":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h.Header[k] {
			if err := field(k, v); err != nil {
				return nil, err
			}
		}
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.Write(h.Body)
	return b.Bytes(), nil
}

func (h Request) get(name string) string {
	for k, vs := range h.Header {
		if len(vs) > 0 && textproto.CanonicalMIMEHeaderKey(k) == name {
			return vs[0]
		}
	}
	return ""
}

// valid reports whether s can be a header's name (no space, colon or control
// character) or value (no control character but a tab).
func valid(s string, value bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' && value:
		case c < ' ' || c == 0x7f:
			return false
		case !value && (c == ' ' || c == ':' || c >= 0x80):
			return false
		}
	}
	return true
}

// maxHead bounds the response's status line and headers.
const maxHead = 16 << 10

// readHead reads the status line and headers, skipping informational 1xx
// answers. length is -1 when the answer gives none.
func readHead(r *bufio.Reader) (status int, length int64, chunked bool, err error) {
	for {
		read := 0
		line := func() (string, error) {
			l, err := r.ReadSlice('\n')
			read += len(l)
			if err == bufio.ErrBufferFull || read > maxHead {
				return "", errors.New("response header too long")
			}
			return strings.TrimRight(string(l), "\r\n"), err
		}
		first, err := line()
		if err != nil {
			return 0, 0, false, err
		}
		proto, rest, _ := strings.Cut(first, " ")
		code, _, _ := strings.Cut(rest, " ")
		status, err = strconv.Atoi(code)
		if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 || err != nil {
			return 0, 0, false, fmt.Errorf("malformed HTTP response %q", text.ClipBytes(first, 40))
		}
		length = -1
		for {
			l, err := line()
			if err != nil {
				return 0, 0, false, err
			}
			if l == "" {
				break
			}
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimSpace(v)
			switch textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k)) {
			case "Content-Length":
				if length, err = strconv.ParseInt(v, 10, 64); err != nil || length < 0 {
					return 0, 0, false, fmt.Errorf("bad Content-Length %q", v)
				}
			case "Transfer-Encoding":
				chunked = strings.EqualFold(v, "chunked")
			}
		}
		if status >= 200 || status == 101 {
			return status, length, chunked, nil
		}
	}
}

// chunkReader decodes a chunked body.
type chunkReader struct {
	r    *bufio.Reader
	left int64 // of the current chunk
	done bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	if c.left == 0 {
		l, err := c.r.ReadString('\n')
		if err != nil {
			return 0, unexpected(err)
		}
		size, _, _ := strings.Cut(strings.TrimSpace(l), ";")
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad chunk size %q", text.ClipBytes(l, 20))
		}
		if n == 0 {
			c.done = true
			return 0, io.EOF
		}
		c.left = n
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		_, err = c.r.Discard(2) // the chunk's CRLF
	}
	return n, unexpected(err)
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
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
