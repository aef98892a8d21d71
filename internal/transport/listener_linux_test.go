package transport

import (
	"errors"
	"net"
	"os"
	"testing"
)

// A listener of ours is found, with our uid, both ways (the connection,
// the listener), and passes the check: on IPv4, on IPv6, and a dual-stack
// [::] listener reached over IPv4.
func TestListenerUIDOwn(t *testing.T) {
	for _, c := range []struct{ network, listen, dial string }{
		{"tcp4", "127.0.0.1:0", "127.0.0.1"}, {"tcp6", "[::1]:0", "::1"}, {"tcp", "[::]:0", "127.0.0.1"},
	} {
		network := c.network
		ln, err := net.Listen(network, c.listen)
		if err != nil {
			t.Logf("%s: %v", network, err) // a machine without IPv6 loopback
			continue
		}
		defer ln.Close()
		addr := &net.TCPAddr{IP: net.ParseIP(c.dial), Port: ln.Addr().(*net.TCPAddr).Port}
		if uid, ok := listenerUID(addr); !ok || uid != os.Geteuid() {
			t.Errorf("%s %v: listener uid %d, %v; want %d", network, addr, uid, ok, os.Geteuid())
		}
		conn, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		if uid, ok := connectionUID(conn.LocalAddr().(*net.TCPAddr), addr); !ok || uid != os.Geteuid() {
			t.Errorf("%s %v: connection uid %d, %v; want %d", network, addr, uid, ok, os.Geteuid())
		}
		if err := CheckListener(conn); err != nil {
			t.Errorf("%s: %v", network, err)
		}
		conn.Close()
	}
}

// BenchmarkCheckListener is the check's cost on a send: a listener of ours
// on loopback, read from the live /proc tables of this machine.
func BenchmarkCheckListener(b *testing.B) {
	conn := loopbackConn(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckListener(conn); errors.Is(err, ErrForeignListener) {
			b.Fatal(err)
		}
	}
}

// BenchmarkConnectionUID is the exact lookup alone (CheckListener's first
// and usual answer).
func BenchmarkConnectionUID(b *testing.B) {
	conn := loopbackConn(b)
	b.ReportAllocs()
	for b.Loop() {
		connectionUID(conn.LocalAddr().(*net.TCPAddr), conn.RemoteAddr().(*net.TCPAddr))
	}
}

// loopbackConn is a connection to a listener of ours on IPv4 loopback,
// both closed when the benchmark ends.
func loopbackConn(b *testing.B) net.Conn {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return conn
}
