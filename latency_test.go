package hookwire_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/combined"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/testkit"
)

// latencyTargets says how each binary delivers to a target that costs as
// little as possible, so that the benchmark measures the binary itself.
var latencyTargets = map[string]func(b *testing.B, bin, dir string) (env []string, stdin string){
	"pulse-emit": func(b *testing.B, bin, dir string) ([]string, string) {
		return tinyNoctalia(b, bin, dir), goodPayload
	},
	"nb-hook": func(b *testing.B, bin, dir string) ([]string, string) {
		// A Coucou app in this process that acknowledges at once.
		return coucouTarget(b, dir, "ok"), goodPayload
	},
	"pulse-claude": func(b *testing.B, bin, dir string) ([]string, string) {
		// A Stop with a transcript of a few hundred messages: after the
		// first run, each run reads the state and scans nothing new.
		path := filepath.Join(dir, "session.jsonl")
		var t bytes.Buffer
		for i := range 300 {
			fmt.Fprintf(&t, `{"type":"assistant","timestamp":"2026-11-30T09:%02d:%02d.000Z","requestId":"r%d","message":{"id":"m%d","model":"claude-opus-4-6","content":[{"type":"text","text":"All tests pass."}],"usage":{"input_tokens":3,"output_tokens":%d,"cache_creation_input_tokens":500,"cache_read_input_tokens":9000}}}`+"\n", i/60, i%60, i, i, 10+i)
		}
		os.WriteFile(path, t.Bytes(), 0o600)
		stdin := `{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","hook_event_name":"Stop","transcript_path":"` + path +
			`","cwd":"/tmp","last_assistant_message":"All tests pass."}`
		return tinyNoctalia(b, bin, dir), stdin
	},
	"trailboss-hook": func(b *testing.B, bin, dir string) ([]string, string) {
		// A prompt, which always sends (unstuck), to a daemon in this
		// process that answers at once.
		return trailbossLatencyTarget(b), `{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"go on"}`
	},
	"vpet-notify": func(b *testing.B, bin, dir string) ([]string, string) {
		return vpetPet(b, dir, "ok"), goodPayload // a Stop: run.completed over the socket
	},
	"coral-pulse": func(b *testing.B, bin, dir string) ([]string, string) {
		// A Coral session's log in $TMPDIR: one append per run.
		const uuid = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"
		os.WriteFile(filepath.Join(dir, "claude_coral_"+uuid+".log"), nil, 0o600)
		return []string{"CORAL_SESSION_NAME=claude-" + uuid}, goodPayload
	},
}

// tinyNoctalia puts a noctalia on PATH that is a tiny static program
// exiting at once.
func tinyNoctalia(b *testing.B, bin, dir string) []string {
	noctalia := filepath.Join(dir, "noctalia")
	if err := testkit.WriteTinyExit(noctalia); err != nil {
		b.Logf("%v: using a Go program instead", err)
		os.Link(filepath.Join(bin, "quiettrue"), noctalia)
	}
	return []string{"PATH=" + dir}
}

// BenchmarkLatency measures whole-process latency, spawn to exit, of each
// binary handling a realistic Stop payload and dispatching to a local
// target, beside /bin/true as the floor of spawning anything. It reports
// p50 and p95 in milliseconds:
//
//	go test -run '^$' -bench Latency -benchtime 2000x .
//
// hookwire's own figure per event, serving the five surfaces, against an
// empty static Go binary in the same interleaved rounds, with intervals, is
// scripts/livebench's (-invocations), which writes it into the docs.
func BenchmarkLatency(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("floor=/bin/true", func(b *testing.B) {
		spawn(b, exec.Command("/bin/true"), []byte(goodPayload), nil)
	})
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range latencyTargets {
			if !yield(k) {
				return
			}
		}
	}) {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			env, stdin := latencyTargets[name](b, bin, dir)
			spawn(b, exec.Command(filepath.Join(bin, name), hostileTargets[name].args...), []byte(stdin), append(baseEnv(dir), env...))
		})
	}
}

// spawn runs cmd b.N times with stdin piped in and reports percentiles.
func spawn(b *testing.B, proto *exec.Cmd, stdin []byte, env []string) {
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		cmd := exec.Command(proto.Path, proto.Args[1:]...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		if out.Len() > 0 {
			b.Fatalf("stdout: %q", out.String())
		}
	}
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[int(p*float64(len(times)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkHookWork measures each binary's own work on each event of a
// recorded Codex session (testdata/agents), in process: what an event costs
// beyond starting a process, against surfaces in this process that answer
// at once. It is how to tell whether an event does more work than the
// others (a session start collecting state, a prompt's extra delivery):
//
//	go test -run '^$' -bench HookWork -benchtime 200x .
func BenchmarkHookWork(b *testing.B) {
	dir := b.TempDir()
	env := append(baseEnv(dir), coucouTarget(b, dir, "ok")...)
	env = append(env, trailbossLatencyTarget(b)...)
	env = append(env, vpetPet(b, dir, "ok")...)
	env = append(env, "VPET_NOTIFY_TOKEN="+vpetToken)
	const uuid = "d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"
	os.WriteFile(filepath.Join(dir, "claude_coral_"+uuid+".log"), nil, 0o600)
	env = append(env, "CORAL_SESSION_NAME=claude-"+uuid, "CORAL_URL=http://127.0.0.1:1")
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	env = append(env, tinyNoctalia(b, bin, dir)...)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	payloads, _ := filepath.Glob("testdata/agents/codex-0.169.0/*.json")
	seen := map[string]bool{}
	for _, p := range payloads {
		event := strings.TrimSuffix(filepath.Base(p), ".json")[3:]
		if event == "notify" || seen[event] {
			continue
		}
		seen[event] = true
		for _, name := range slices.Sorted(maps.Keys(latencyTargets)) {
			if name == "pulse-emit" {
				continue
			}
			b.Run(event+"/"+name, func(b *testing.B) {
				for b.Loop() {
					f, err := os.Open(p)
					if err != nil {
						b.Fatal(err)
					}
					hook.Run(binaries[name](), []string{"--agent", "codex"}, f, devnull, devnull)
					f.Close()
				}
			})
		}
	}
}

// BenchmarkDeliveries is the grace's yardstick (hook.Grace): how long one
// hookwire event's work takes in process, parse and the five surfaces'
// handlers and deliveries (HOOKWIRE_GRACE=0: all waited for), each surface
// in this process answering at once, noctalia's socket included, as on a
// desktop running it. It reports p50, p95 and the worst in milliseconds:
// the grace must stand far above the worst. Its state directory is in
// TMPDIR: TMPDIR=/dev/shm puts it on tmpfs, as a desktop's XDG_RUNTIME_DIR
// is:
//
//	go test -run '^$' -bench Deliveries -benchtime 2000x .
func BenchmarkDeliveries(b *testing.B) {
	dir := b.TempDir()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	env := append(baseEnv(dir), hook.EnvGrace+"=0")
	surfaces := []string{"nb-hook", "pulse-claude", "trailboss-hook", "vpet-notify", "coral-pulse"}
	for _, s := range surfaces {
		e, _ := latencyTargets[s](b, bin, dir)
		env = append(env, e...)
	}
	env = append(env, "VPET_NOTIFY_TOKEN="+vpetToken)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	serveUnix(b, filepath.Join(dir, "run", "noctalia-wayland-0.sock"), "ok", func(c net.Conn) {
		if _, err := bufio.NewReader(c).ReadBytes('\n'); err == nil {
			c.Write([]byte("ok: dispatched 1\n"))
		}
	})
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	payload := filepath.Join(dir, "pre.json")
	os.WriteFile(payload, []byte(`{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","hook_event_name":"PreToolUse","transcript_path":"`+
		filepath.Join(dir, "session.jsonl")+`","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}`), 0o600)
	c := combined.Hookwire()
	args := []string{"--surfaces", strings.Join(surfaces, ",")}
	var took []time.Duration
	for b.Loop() {
		f, err := os.Open(payload)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if code := hook.RunCombined(c, args, f, devnull, devnull); code != 0 {
			b.Fatalf("exit %d", code)
		}
		took = append(took, time.Since(start))
		f.Close()
	}
	slices.Sort(took)
	for _, p := range []float64{0.5, 0.95, 1} {
		b.ReportMetric(float64(took[int(p*float64(len(took)-1))].Microseconds())/1000, fmt.Sprintf("p%.0f-ms", p*100))
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCombined measures what one agent event costs a user of the five
// agent surfaces: their five binaries spawned at once (as Claude Code runs
// an event's hooks) and one after another (as Copilot CLI does), against
// the one hookwire process serving the five. Each iteration is one prompt
// (every surface sends on it) to targets in this process that answer at
// once; it reports the wall time until the last process exits and the CPU
// time of the processes (user and system), p50 and p95 in milliseconds:
//
//	go test -run '^$' -bench Combined -benchtime 300x .
func BenchmarkCombined(b *testing.B) {
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		b.Fatal(err)
	}
	surfaces := []string{"nb-hook", "pulse-claude", "trailboss-hook", "vpet-notify", "coral-pulse"}
	dir := b.TempDir()
	env := baseEnv(dir)
	for _, s := range surfaces {
		e, _ := latencyTargets[s](b, bin, dir)
		env = append(env, e...)
	}
	stdin := []byte(`{"session_id":"d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11","hook_event_name":"UserPromptSubmit","transcript_path":"` +
		filepath.Join(dir, "session.jsonl") + `","cwd":"/tmp","prompt":"go on"}`)
	run := func(b *testing.B, parallel bool, argvs ...[]string) {
		var wall, cpu []time.Duration
		for b.Loop() {
			start := time.Now()
			var used time.Duration
			var cmds []*exec.Cmd
			for _, argv := range argvs {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env, cmd.Stdin = env, bytes.NewReader(stdin)
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				cmds = append(cmds, cmd)
				if !parallel {
					cmd.Wait()
				}
			}
			for _, cmd := range cmds {
				if parallel {
					cmd.Wait()
				}
				used += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			wall, cpu = append(wall, time.Since(start)), append(cpu, used)
		}
		for _, m := range []struct {
			name string
			v    []time.Duration
		}{{"wall", wall}, {"cpu", cpu}} {
			slices.Sort(m.v)
			for _, p := range []float64{0.5, 0.95} {
				b.ReportMetric(float64(m.v[int(p*float64(len(m.v)-1))].Microseconds())/1000, fmt.Sprintf("%s-p%.0f-ms", m.name, p*100))
			}
		}
		b.ReportMetric(0, "ns/op")
	}
	var five [][]string
	for _, s := range surfaces {
		five = append(five, []string{filepath.Join(bin, s)})
	}
	b.Run("five-at-once", func(b *testing.B) { run(b, true, five...) })
	b.Run("five-in-turn", func(b *testing.B) { run(b, false, five...) })
	b.Run("hookwire", func(b *testing.B) {
		run(b, false, []string{filepath.Join(bin, "hookwire"), "--surfaces", strings.Join(surfaces, ",")})
	})
	b.Run("floor=five-/bin/true-at-once", func(b *testing.B) {
		run(b, true, []string{"/bin/true"}, []string{"/bin/true"}, []string{"/bin/true"}, []string{"/bin/true"}, []string{"/bin/true"})
	})
	b.Run("floor=/bin/true", func(b *testing.B) { run(b, false, []string{"/bin/true"}) })
}
