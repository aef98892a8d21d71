package main

import (
	"math"
	"testing"
)

// The interval resamples whole rounds: an arm that is the floor plus 100 ms
// in every round differs by exactly 100 ms in every resample, however the
// rounds themselves spread; arms the noise alone tells apart get an
// interval that holds no difference at all.
func TestInterval(t *testing.T) {
	wall := func(r result) float64 { return r.Ms }
	spread := []float64{1013, 1642, 1201, 1297, 1073, 1382, 1254, 1172, 1413, 1038, 1376, 1240, 1177, 1270, 1384}
	var floor, shifted, other []result
	for i, ms := range spread {
		floor = append(floor, result{Round: i + 1, Ms: ms})
		shifted = append(shifted, result{Round: i + 1, Ms: ms + 100})
		other = append(other, result{Round: i + 1, Ms: spread[(i+7)%len(spread)]})
	}
	if lo, hi, ok := interval(floor, shifted, wall); !ok || lo != 100 || hi != 100 {
		t.Errorf("the floor plus 100 ms: %v to %v (%v), want exactly +100", lo, hi, ok)
	}
	if lo, hi, ok := interval(floor, other, wall); !ok || lo > -100 || hi < 100 {
		t.Errorf("the same sessions, rounds shuffled: %v to %v (%v), want an interval wider than ±100 ms", lo, hi, ok)
	}
	// Rounds of one arm only are no pairs; fewer than five pairs, no interval.
	if _, _, ok := interval(floor[:4], append(shifted[:4:4], result{Round: 99, Ms: 1}), wall); ok {
		t.Error("four pairs gave an interval")
	}
	if d := medianOf(nil, wall); !math.IsNaN(d) {
		t.Errorf("medianOf(nil) = %v, want NaN", d)
	}
}
