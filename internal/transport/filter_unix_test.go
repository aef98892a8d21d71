//go:build unix

package transport

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A status line before ours: it gets the same input, its stdout comes back
// (not its stderr), cut at MaxOut while the rest is drained, and a command
// that hangs, or leaves a child holding the pipe, does not hold us.
func TestFilter(t *testing.T) {
	ctx := context.Background()
	sh := func(script string, in string, max int) (Reply, error) {
		return Filter{Argv: []string{"/bin/sh", "-c", script}, Input: []byte(in), Env: []string{"CHAINED=1"}, MaxOut: max}.Do(ctx)
	}
	r, err := sh(`read -r l; echo "[$l] $CHAINED"; echo noise >&2; exit 3`, "{\"a\":1}\n", 1<<10)
	if err != nil || string(r.Body) != "[{\"a\":1}] 1\n" || r.Status != 3 {
		t.Errorf("got %q, status %d, %v", r.Body, r.Status, err)
	}
	r, err = sh(`head -c 100000 /dev/zero`, "", 64)
	if err != nil || len(r.Body) != 64 {
		t.Errorf("flood: %d bytes, %v", len(r.Body), err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = Filter{Argv: []string{"/bin/sh", "-c", "sleep 5"}, MaxOut: 64}.Do(short)
	if !errors.Is(err, ErrDeadline) {
		t.Errorf("hang: %v", err)
	}
	r, err = sh(`echo hi; (sleep 5 &)`, "", 64)
	if err != nil || strings.TrimSpace(string(r.Body)) != "hi" {
		t.Errorf("background child: %q, %v", r.Body, err)
	}
}
