package hook

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// pipe returns the read end of a pipe fed by write, which runs concurrently
// and may leave the pipe open.
func pipe(t *testing.T, write func(w *os.File)) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	go write(w)
	return r
}

func TestReadStdin(t *testing.T) {
	payload := `{"session_id":"s","hook_event_name":"Stop"}`
	for _, tc := range []struct {
		name      string
		write     func(w *os.File)
		want      string
		truncated bool
		note      string // substring; "" means no note
		maxWait   time.Duration
	}{
		{"closed after the payload", func(w *os.File) { w.WriteString(payload); w.Close() }, payload, false, "", time.Second},
		{"BOM stripped", func(w *os.File) { w.WriteString("\xEF\xBB\xBF" + payload); w.Close() }, payload, false, "", time.Second},
		{"empty", func(w *os.File) { w.Close() }, "", false, "", time.Second},
		{"complete JSON, pipe never closed", func(w *os.File) { w.WriteString(payload + "\n") }, payload + "\n", false, "", 200 * time.Millisecond},
		{"nothing, pipe never closed", func(w *os.File) {}, "", false, "never closed", stdinFirstByte + 300*time.Millisecond},
		{"partial JSON, then silence", func(w *os.File) { w.WriteString(`{"session_id":`) }, `{"session_id":`, false, "silence", stdinQuiet + 300*time.Millisecond},
		{"trickled, then closed", func(w *os.File) {
			for _, part := range []string{`{"session_id"`, `:"s",`, `"x":1}`} {
				w.WriteString(part)
				time.Sleep(20 * time.Millisecond)
			}
			w.Close()
		}, `{"session_id":"s","x":1}`, false, "", time.Second},
		{"not JSON", func(w *os.File) { w.WriteString("hello\n"); w.Close() }, "hello\n", false, "", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			in, note := readStdin(pipe(t, tc.write))
			if took := time.Since(start); took > tc.maxWait {
				t.Errorf("took %v, want at most %v", took, tc.maxWait)
			}
			if string(in.Data) != tc.want || in.Truncated != tc.truncated {
				t.Errorf("got %q (truncated %v), want %q", in.Data, in.Truncated, tc.want)
			}
			if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want one containing %q", note, tc.note)
			}
		})
	}
}

func TestReadStdinCap(t *testing.T) {
	big := bytes.Repeat([]byte("x"), StdinCap+1<<20)
	r := pipe(t, func(w *os.File) { w.Write(big) }) // never closed either
	in, note := readStdin(r)
	if len(in.Data) != StdinCap || !in.Truncated || !strings.Contains(note, "kept the first") {
		t.Errorf("read %d bytes (truncated %v, note %q), want the first %d", len(in.Data), in.Truncated, note, StdinCap)
	}
}

func TestReadStdinTrickleForever(t *testing.T) {
	// A writer that never stops and never completes the JSON gets cut off.
	r := pipe(t, func(w *os.File) {
		w.WriteString(`{"a":"`)
		for {
			if _, err := w.WriteString("x"); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	start := time.Now()
	_, note := readStdin(r)
	if took := time.Since(start); took > stdinMax+300*time.Millisecond {
		t.Errorf("took %v", took)
	}
	if !strings.Contains(note, "still open") {
		t.Errorf("note %q", note)
	}
}

func TestReadStdinNil(t *testing.T) {
	if in, note := readStdin(nil); in.Data != nil || note != "" {
		t.Errorf("got %q, %q", in.Data, note)
	}
}

func TestReadBoundedError(t *testing.T) {
	in, note := readBounded(io.MultiReader(strings.NewReader("{"), errReader{}), 100, time.Second, time.Second, time.Second)
	if string(in.Data) != "{" || !strings.Contains(note, "unexpected EOF") {
		t.Errorf("got %q, note %q", in.Data, note)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBoom }

func TestPositional(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--bogus", "turn_end", "s1"}, []string{"--", "turn_end", "s1"}},
		{[]string{"idle", "-", "-5", "-x"}, []string{"--", "idle", "-", "-5"}},
		{[]string{"--agent=x", "a", "--", "--b"}, []string{"--", "a", "--b"}},
	} {
		if got := positional(tc.in); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("positional(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

var errBoom = io.ErrUnexpectedEOF
