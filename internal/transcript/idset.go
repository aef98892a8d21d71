package transcript

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hookwire/hookwire/internal/rawfile"
)

// IDSet is the persistent set of counted message keys: an open-addressing
// hash table in a file, read and written a few slots at a time. It grows
// with the session, but a lookup or an insertion costs the same whatever its
// size; it is read whole only to grow (doubling) and after a crash.
//
// Each entry carries the generation of the call that added it; a Session
// commits generation g when it is saved after that call. The header notes
// the generation in progress: a call that dies before its Session is saved
// leaves entries of an uncommitted generation, which the next call purges
// before anything trusts them. The header also holds the Session's epoch: a
// table that does not belong to the saved Session (lost, damaged, another
// epoch) is emptied, and the Session recounts from the start.
type IDSet struct {
	f        *os.File
	s        *Session
	gen      uint64 // this call's generation: the Session's committed one + 1
	capacity uint64 // slots, a power of two
	count    uint64 // occupied slots
}

const (
	setMagic  = "HWidset2"
	setHeader = 40 // magic, capacity, count, epoch, generation in progress
	slotSize  = 16 // key, generation
	minSlots  = 1 << 10
)

// OpenIDSet opens (or creates) the set at path for s and makes it the set
// s counts against. Close it after scanning, then save s.
func OpenIDSet(path string, s *Session) (*IDSet, error) {
	f, err := rawfile.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	t := &IDSet{f: f, s: s, gen: s.Gen + 1}
	ok, inProgress, err := t.readHeader()
	switch {
	case err != nil:
		f.Close()
		return nil, err
	case !ok:
		// Not this Session's table: what it counted cannot be told apart
		// any more, so it starts over, exactly.
		if s.Gen > 0 || s.Epoch != 0 {
			s.restart()
		}
		var b [8]byte
		rand.Read(b[:])
		s.Epoch, s.Gen, t.gen = binary.LittleEndian.Uint64(b[:])|1, 0, 1
		err = t.reset(minSlots)
	case inProgress == t.gen:
		err = t.rebuild(t.capacity, false) // a call died mid-way: drop its entries
	}
	if err == nil {
		err = t.writeHeader()
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	s.ids = t
	return t, nil
}

// Close records the table's size and advances the Session's generation, so
// that saving the Session commits this call's entries.
func (t *IDSet) Close() error {
	t.s.Gen = t.gen
	t.s.ids = nil
	return errors.Join(t.writeHeader(), t.f.Close())
}

func (t *IDSet) readHeader() (ok bool, inProgress uint64, err error) {
	var h [setHeader]byte
	if _, err := t.f.ReadAt(h[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return false, 0, nil
		}
		return false, 0, err
	}
	t.capacity = binary.LittleEndian.Uint64(h[8:])
	t.count = binary.LittleEndian.Uint64(h[16:])
	epoch := binary.LittleEndian.Uint64(h[24:])
	inProgress = binary.LittleEndian.Uint64(h[32:])
	fi, err := t.f.Stat()
	if err != nil {
		return false, 0, err
	}
	ok = string(h[:8]) == setMagic && epoch == t.s.Epoch && t.s.Epoch != 0 &&
		t.capacity >= minSlots && t.capacity&(t.capacity-1) == 0 &&
		fi.Size() == setHeader+int64(t.capacity)*slotSize
	return ok, inProgress, nil
}

func (t *IDSet) writeHeader() error {
	var h [setHeader]byte
	copy(h[:], setMagic)
	binary.LittleEndian.PutUint64(h[8:], t.capacity)
	binary.LittleEndian.PutUint64(h[16:], t.count)
	binary.LittleEndian.PutUint64(h[24:], t.s.Epoch)
	binary.LittleEndian.PutUint64(h[32:], t.gen)
	_, err := t.f.WriteAt(h[:], 0)
	return err
}

func (t *IDSet) reset(capacity uint64) error {
	if err := t.f.Truncate(0); err != nil {
		return err
	}
	t.capacity, t.count = capacity, 0
	return t.f.Truncate(setHeader + int64(capacity)*slotSize)
}

// slots reads n slots from index i.
func (t *IDSet) slots(buf []byte, i uint64) error {
	_, err := t.f.ReadAt(buf, setHeader+int64(i)*slotSize)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// find walks key's probe chain: it returns the slot holding key, or else
// the first empty slot of the chain.
func (t *IDSet) find(key uint64) (slot uint64, found bool, err error) {
	var buf [4 * slotSize]byte
	i := key & (t.capacity - 1)
	for seen := uint64(0); seen < t.capacity; {
		n := min(4, t.capacity-i) // a few slots per read, up to the table's end
		if err := t.slots(buf[:n*slotSize], i); err != nil {
			return 0, false, err
		}
		for j := uint64(0); j < n; j, i, seen = j+1, i+1, seen+1 {
			switch binary.LittleEndian.Uint64(buf[j*slotSize:]) {
			case key:
				return i, true, nil
			case 0:
				return i, false, nil
			}
		}
		i &= t.capacity - 1
	}
	return 0, false, errors.New("id set full")
}

// Has reports whether key was counted.
func (t *IDSet) Has(key uint64) (bool, error) {
	_, found, err := t.find(nonzero(key))
	return found, err
}

// Add records key as counted.
func (t *IDSet) Add(key uint64) error {
	key = nonzero(key)
	if (t.count+1)*2 > t.capacity {
		if err := t.rebuild(2*t.capacity, true); err != nil {
			return err
		}
	}
	i, found, err := t.find(key)
	if err != nil || found {
		return err
	}
	var slot [slotSize]byte
	binary.LittleEndian.PutUint64(slot[:], key)
	binary.LittleEndian.PutUint64(slot[8:], t.gen)
	if _, err := t.f.WriteAt(slot[:], setHeader+int64(i)*slotSize); err != nil {
		return err
	}
	t.count++
	return nil
}

// rebuild rewrites the table with capacity slots, keeping the entries of
// committed generations, and this call's when ours is true.
func (t *IDSet) rebuild(capacity uint64, ours bool) error {
	old := make([]byte, t.capacity*slotSize)
	if err := t.slots(old, 0); err != nil {
		return err
	}
	table := make([]byte, capacity*slotSize)
	count := uint64(0)
	for o := 0; o+slotSize <= len(old); o += slotSize {
		k, gen := binary.LittleEndian.Uint64(old[o:]), binary.LittleEndian.Uint64(old[o+8:])
		if k == 0 || gen > t.gen || (gen == t.gen && !ours) {
			continue
		}
		i := k & (capacity - 1)
		for binary.LittleEndian.Uint64(table[i*slotSize:]) != 0 {
			i = (i + 1) & (capacity - 1)
		}
		copy(table[i*slotSize:], old[o:o+slotSize])
		count++
	}
	if err := t.reset(capacity); err != nil {
		return err
	}
	t.count = count
	if _, err := t.f.WriteAt(table, setHeader); err != nil {
		return fmt.Errorf("rebuilding the id set: %w", err)
	}
	return t.writeHeader()
}

// nonzero keeps 0 free to mark an empty slot.
func nonzero(k uint64) uint64 {
	if k == 0 {
		return 1
	}
	return k
}
