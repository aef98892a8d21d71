package remote

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hookwire/hookwire/internal/safefile"
)

// A full disk under the relay directory: the hooks cannot append to the
// spool, the relay cannot persist an ack. While a desktop is connected a
// hook hands its delivery to the relay's socket instead (HandLive), and the
// relay persists the acks it could not once there is space again (retried
// on a timer, and on every ack and poke). What happened is recorded in
// relay/full for doctor, once it can be written.

// fullFile is that record.
const fullFile = "full"

// Full is relay/full: the last time the spool's disk was found full, and
// what it cost.
type Full struct {
	First time.Time `json:"first"` // the first failure of the last episode
	Last  time.Time `json:"last"`  // its last
	// AcksLate: acks that could not be persisted at once (persisted later,
	// when there was space: a relay restarted meanwhile replays them, and a
	// desktop that restarted too shows them again).
	AcksLate int `json:"acks_late,omitempty"`
	// Live: deliveries a hook could not spool and handed to the connected
	// relay instead (carried out, never replayed).
	Live int `json:"live,omitempty"`
}

// NoSpace says err is a full disk (or a full quota).
func NoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// ReadFull is relay/full, nil when the disk was never found full.
func ReadFull(dir string) (*Full, error) {
	b, err := safefile.ReadFile(filepath.Join(dir, fullFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f Full
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// fullEpisode is what the relay saw of a full disk and has not recorded
// yet. The zero value: nothing.
type fullEpisode struct {
	Full
	recorded bool // relay/full holds it
}

func (e *fullEpisode) pending() bool { return !e.First.IsZero() && !e.recorded }

// note counts one failure: of an ack's persisting, or a hook's append
// (a delivery handed live). One recorded already was followed by space: this
// one starts another episode.
func (e *fullEpisode) note(now time.Time, ack bool) {
	if e.recorded {
		*e = fullEpisode{}
	}
	if e.First.IsZero() {
		e.First = now
	}
	e.Last = now
	if ack {
		e.AcksLate++
	} else {
		e.Live++
	}
}

// record writes the episode to relay/full (it needs a little space).
func (e *fullEpisode) record(dir string) error {
	if !e.pending() {
		return nil
	}
	b, err := json.Marshal(e.Full)
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(filepath.Join(dir, fullFile), append(b, '\n'), 0o600); err != nil {
		return err
	}
	e.recorded = true
	return nil
}
