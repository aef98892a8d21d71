package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/hookwire/hookwire/internal/transport"
)

type nop struct{}

func (nop) Describe() string                            { return "" }
func (nop) Summary() string                             { return "" }
func (nop) Do(context.Context) (transport.Reply, error) { return transport.Reply{}, nil }

// BenchmarkServe is the desktop side's own cost per delivery (reading,
// parsing, checking, acking), the surface's delivery left out.
func BenchmarkServe(b *testing.B) {
	var stream bytes.Buffer
	stream.WriteString(`{"hello":{"v":1}}` + "\n")
	for i := 1; i <= b.N; i++ {
		fmt.Fprintf(&stream, `{"seq":%d,"t":1,"surface":"coucou","body":{"session_id":"s1","cwd":"/home/u/app","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make test"}}}`+"\n", i)
	}
	d := &Desktop{Surfaces: map[string]Surface{Coucou: func(string, Delivery) (Carry, error) {
		return Carry{Request: nop{}}, nil
	}}, Stderr: io.Discard}
	c := &conn{d: d, host: Host{Name: "h"}, ctx: context.Background(), askCtx: context.Background(), in: nopCloser{io.Discard}, asks: make(chan struct{}, MaxAsks), done: &progress{}}
	b.ReportAllocs()
	b.ResetTimer()
	if err := c.serve(&stream); err != nil {
		b.Fatal(err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
