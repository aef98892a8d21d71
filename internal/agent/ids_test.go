package agent

import (
	"testing"
	"time"
)

func TestUUIDv7Time(t *testing.T) {
	ms, ok := UUIDv7Time("01a22ce7-8a3e-7ff1-8d87-a521c73f1cd1")
	if !ok || time.UnixMilli(ms).UTC().Format(time.RFC3339) != "2026-11-30T14:41:41Z" {
		t.Errorf("%d %v: %v", ms, ok, time.UnixMilli(ms).UTC())
	}
	if _, ok := UUIDv7Time("d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11"); ok {
		t.Error("a UUIDv4 has no time")
	}
}
