//go:build unix

package remote

import (
	"context"
	"testing"
)

// The hand-over's parts, as a hook pays them: the spool's append (its lock,
// the segment's listing, one write), and the poke with and without a relay
// listening.
//
//	go test -run '^$' -bench . ./internal/remote
func BenchmarkAppend(b *testing.B) {
	dir := newDir(b)
	l := line("d63ac083", 1, false)
	for b.Loop() {
		if _, err := Append(context.Background(), dir, l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHandNoRelay(b *testing.B) {
	dir := newDir(b)
	l := line("d63ac083", 1, false)
	for b.Loop() {
		if _, _, err := Hand(context.Background(), dir, l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHandPoked(b *testing.B) {
	dir := newDir(b)
	listenRelay(b, dir, true)
	l := line("d63ac083", 1, false)
	missed := 0
	for b.Loop() {
		_, poked, err := Hand(context.Background(), dir, l)
		if err != nil {
			b.Fatal(err)
		}
		if !poked {
			missed++ // a connect past pokeWithin on a loaded machine
		}
	}
	b.ReportMetric(float64(missed), "missed-pokes")
}
