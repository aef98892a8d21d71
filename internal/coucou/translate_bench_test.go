package coucou

import (
	"os"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
)

// BenchmarkTranslate: the cost of nb-hook's second look at a payload (the
// dialect's parse is the first), on a recorded PostToolUse and a recorded
// Stop.
func BenchmarkTranslate(b *testing.B) {
	for _, name := range []string{"05-PostToolUse.json", "14-Stop.json"} {
		payload, err := os.ReadFile("../../testdata/agents/claude-2.1.328/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			now := time.Unix(1, 0)
			for b.Loop() {
				ev := agent.Parse(agent.Input{Payload: payload, Now: func() time.Time { return now }})
				if _, _, ok := Translate(payload, Input{Parsed: &ev, Now: now}); !ok {
					b.Fatal("not relayed")
				}
			}
		})
		b.Run(name+"/parse-only", func(b *testing.B) {
			b.ReportAllocs()
			now := time.Unix(1, 0)
			for b.Loop() {
				agent.Parse(agent.Input{Payload: payload, Now: func() time.Time { return now }})
			}
		})
	}
}
