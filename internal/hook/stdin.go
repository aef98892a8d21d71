package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// Stdin is what the agent wrote on standard input.
type Stdin struct {
	Data []byte
	// Truncated says Data holds only the first StdinCap bytes.
	Truncated bool
}

// How stdin is read. Agents write the whole payload right after they spawn the
// hook and then close the pipe, so the common case never waits; these bounds
// matter only for a pipe that nobody closes (a hook run from a script whose
// stdin is inherited) or a writer that stalls.
const (
	// StdinCap bounds what is read. Hook payloads are small; a tool_input
	// holding a whole file can reach a few MiB.
	StdinCap = 4 << 20
	// stdinFirstByte is how long an open pipe may stay silent before we decide
	// nothing is coming.
	stdinFirstByte = 500 * time.Millisecond
	// stdinQuiet is how long a payload that is not yet complete JSON may pause.
	stdinQuiet = 250 * time.Millisecond
	// stdinMax bounds the whole read, however the writer trickles.
	stdinMax = time.Second
)

var bom = []byte("\xEF\xBB\xBF")

// readStdin reads f under the bounds above and returns a note for the debug
// log when something was unusual.
func readStdin(f *os.File) (Stdin, string) {
	if f == nil {
		return Stdin{}, ""
	}
	if fd := f.Fd(); isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd) {
		return Stdin{}, "stdin is a terminal: not read"
	}
	in, note := readBounded(f, StdinCap, stdinFirstByte, stdinQuiet, stdinMax)
	in.Data = bytes.TrimPrefix(in.Data, bom)
	return in, note
}

type chunk struct {
	b   []byte
	err error
}

// readBounded reads r until EOF, until what arrived is a complete JSON object
// (an agent that forgets to close the pipe still gets served at once), until
// limit bytes, or until the pipe stays silent too long. The reading goroutine
// is abandoned when we stop early: it can only be blocked in Read on a pipe
// that the process exit will close.
func readBounded(r io.Reader, limit int, firstByte, quiet, max time.Duration) (Stdin, string) {
	chunks := make(chan chunk, 4)
	done := make(chan struct{})
	defer close(done)
	go func() {
		// A copy of what each read brought: a payload is a few KiB.
		b := new([64 << 10]byte)
		for {
			n, err := r.Read(b[:])
			select {
			case chunks <- chunk{bytes.Clone(b[:n]), err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var data []byte
	start := time.Now()
	idle := time.NewTimer(firstByte)
	defer idle.Stop()
	overall := time.NewTimer(max)
	defer overall.Stop()
	for {
		select {
		case c := <-chunks:
			if data == nil && len(c.b) > 0 {
				data = c.b // the first chunk is the payload, mostly
			} else {
				data = append(data, c.b...)
			}
			if len(data) > limit {
				return Stdin{Data: data[:limit], Truncated: true},
					fmt.Sprintf("stdin: more than %d bytes; kept the first %d", limit, limit)
			}
			if c.err != nil {
				if c.err != io.EOF {
					return Stdin{Data: data}, "stdin: " + c.err.Error()
				}
				return Stdin{Data: data}, ""
			}
			if complete(data) {
				return Stdin{Data: data}, ""
			}
			if len(c.b) > 0 {
				idle.Reset(quiet)
			}
		case <-idle.C:
			if len(data) == 0 {
				return Stdin{}, fmt.Sprintf("stdin: a pipe with no data after %v that was never closed: not waiting for it", firstByte)
			}
			return Stdin{Data: data}, fmt.Sprintf("stdin: %d bytes, then silence for %v without the pipe being closed: using what arrived", len(data), quiet)
		case <-overall.C:
			return Stdin{Data: data}, fmt.Sprintf("stdin: still open after %v (%d bytes): using what arrived", time.Since(start).Round(time.Millisecond), len(data))
		}
	}
}

// complete reports whether data is a whole JSON object. The cheap byte test
// keeps a payload arriving in many chunks from being validated at every chunk.
func complete(data []byte) bool {
	t := bytes.TrimRight(data, " \t\r\n")
	return len(t) > 0 && t[len(t)-1] == '}' && json.Valid(t) // linear, bounded depth (agent.Salvage)
}
