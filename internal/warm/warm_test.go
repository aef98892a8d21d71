package warm

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A request's bytes, stated by hand from the wire's description in warm.go.
func TestEncode(t *testing.T) {
	got := Encode(nil, "/usr/local/bin/hookwire", "/home/u/proj", 4242, 2,
		[]byte("--agent\x00claude\x00"), []byte("HOME=/home/u\x00A=b=c\x00"))
	body := "hookwire-warm/1\x00/usr/local/bin/hookwire\x00/home/u/proj\x004242\x002\x00--agent\x00claude\x00HOME=/home/u\x00A=b=c\x00"
	want := append([]byte{byte(len(body)), 0, 0, 0}, body...)
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode:\n got %q\nwant %q", got, want)
	}
	if n := Length(got); n != len(body) {
		t.Fatalf("Length %d, want %d", n, len(body))
	}
	// Appended after what dst holds (the client's environment, in its
	// buffer), the same bytes, dst's own untouched.
	buf := append(make([]byte, 0, 512), "HOME=/home/u\x00"...)
	if after := Encode(buf, "/usr/local/bin/hookwire", "/home/u/proj", 4242, 2,
		[]byte("--agent\x00claude\x00"), []byte("HOME=/home/u\x00A=b=c\x00")); !bytes.Equal(after[len(buf):], want) || string(after[:len(buf)]) != "HOME=/home/u\x00" || &after[0] != &buf[0] {
		t.Fatalf("Encode after %q: %q", buf, after)
	}
	r, ok := Decode(got[4:])
	if !ok || r.Hookwire != "/usr/local/bin/hookwire" || r.Dir != "/home/u/proj" || r.PPID != 4242 ||
		!slices.Equal(r.Args, []string{"--agent", "claude"}) || !slices.Equal(r.Env, []string{"HOME=/home/u", "A=b=c"}) {
		t.Fatalf("Decode: %+v %v", r, ok)
	}
}

func TestLength(t *testing.T) {
	if n := Length([]byte{0x01, 0x02, 0x03, 0x00}); n != 0x030201 {
		t.Fatalf("Length %#x", n)
	}
}

// What a worker must refuse: anything that is not a request of this
// version, whole.
func TestDecodeRefuses(t *testing.T) {
	for _, body := range []string{
		"",
		"\x00\x00\x00\x00",
		"hookwire-warm/2\x00/h\x00/d\x001\x000\x00",           // another version
		"hookwire-warm/1\x00/h\x00/d\x001\x000",               // not NUL-terminated
		"hookwire-warm/1\x00/h\x00/d\x001\x00",                // no argument count
		"hookwire-warm/1\x00/h\x00/d\x00x\x000\x00",           // a parent that is no number
		"hookwire-warm/1\x00/h\x00/d\x001\x003\x00a\x00b\x00", // fewer arguments than said
		"hookwire-warm/1\x00\x00/d\x001\x000\x00",             // no hookwire
		"hookwire-warm/1\x00/h\x00\x001\x000\x00",             // no directory
		"hookwire-warm/1\x00/h\x00/d\x001\x009999999999\x00",  // a count too long to be one
		"hookwire-warm/1\x00/h\x00/d\x00-1\x000\x00",          // a negative parent
	} {
		if r, ok := Decode([]byte(body)); ok {
			t.Errorf("Decode(%q) = %+v, accepted", body, r)
		}
	}
	if r, ok := Decode([]byte("hookwire-warm/1\x00/h\x00/d\x001\x000\x00")); !ok || len(r.Args) != 0 || len(r.Env) != 0 {
		t.Errorf("no arguments, no environment: %+v %v", r, ok)
	}
}

func TestSplitArgs(t *testing.T) {
	argv0, args, n := splitArgs([]byte("/bin/hookwire-client\x00--agent\x00gemini\x00\x00"))
	if argv0 != "/bin/hookwire-client" || string(args) != "--agent\x00gemini\x00\x00" || n != 3 {
		t.Fatalf("%q %q %d", argv0, args, n)
	}
	if f := fields(args); !slices.Equal(f, []string{"--agent", "gemini", ""}) {
		t.Fatalf("fields %q", f)
	}
}

// The client is what the agent pays for on every event: it imports
// nothing whose initialisation runs before main but the runtime's and
// syscall's (os alone would add its own, and io/fs, time, ...).
func TestClientImportsOnlySyscall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/hookwire/hookwire/cmd/hookwire-client").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, ".") && !strings.HasPrefix(p, "github.com/hookwire/hookwire/") {
			t.Errorf("the client imports %s", p)
		}
		switch p {
		case "os", "fmt", "time", "io/fs", "strconv", "reflect", "net":
			t.Errorf("the client imports %s", p)
		}
	}
}
