package hookwire_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/testkit"
)

// BenchmarkRelay measures what handing a delivery to the relay costs a
// hook, spawn to exit, against the same binary delivering to a local
// target that answers at once (issue 22: within 3 ms of it), and against
// the same binary on a machine with neither (its surface absent, no relay:
// what a hook pays for the relay when there is none). "relay" spools with
// no relay listening (no desktop connected); "relay-poked" with a relay
// socket that accepts the poke. p50 and p95 in milliseconds:
//
//	go test -run '^$' -bench Relay -benchtime 1000x .
func BenchmarkRelay(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	locals := map[string]func(b *testing.B, dir string) []string{
		"pulse-emit": func(b *testing.B, dir string) []string { return tinyNoctalia(b, bin, dir) },
		"nb-hook": func(b *testing.B, dir string) []string {
			return coucouTarget(b, dir, "ok")
		},
		"vpet-notify": func(b *testing.B, dir string) []string {
			return append(vpetPet(b, dir, "ok"), "VPET_NOTIFY_TOKEN="+vpetToken)
		},
	}
	for _, name := range []string{"pulse-emit", "nb-hook", "vpet-notify"} {
		args := hostileTargets[name].args
		for _, where := range []string{"local", "absent", "relay", "relay-poked"} {
			b.Run(name+"/"+where, func(b *testing.B) {
				dir := b.TempDir()
				env := baseEnv(dir)
				switch where {
				case "local":
					env = append(env, locals[name](b, dir)...)
				case "relay", "relay-poked":
					relay := remote.Dir(func(k string) string { return map[string]string{"HOME": dir}[k] })
					if err := remote.Create(relay); err != nil {
						b.Fatal(err)
					}
					if where == "relay-poked" {
						pokes(b, remote.SocketPath(relay))
					}
				}
				spawn(b, exec.Command(filepath.Join(bin, name), args...), []byte(goodPayload), env)
			})
		}
	}
}

// pokes listens at path as a relay does, taking each poke.
func pokes(b *testing.B, path string) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

// TestRelayBenchTargets keeps the benchmark's assumption true: a hook on a
// machine without its surface and with a relay spools; without a relay it
// does not.
func TestRelayBenchTargets(t *testing.T) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, relay := range []bool{false, true} {
		dir := t.TempDir()
		rdir := filepath.Join(dir, ".local", "state", "hookwire", "relay")
		if relay {
			if err := remote.Create(rdir); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(filepath.Join(bin, "pulse-emit"), hostileTargets["pulse-emit"].args...)
		cmd.Env = baseEnv(dir)
		cmd.Stdin = strings.NewReader(goodPayload)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("pulse-emit: %v: %q", err, out)
		}
		_, err := os.Stat(filepath.Join(rdir, "spool", "0000000001.jsonl"))
		if relay != (err == nil) {
			t.Errorf("relay set up %v: spooled: %v", relay, err)
		}
	}
}
