package agent

import (
	"encoding/hex"
	"strings"
)

// SafeID is a session id that can name a directory: no separator, no dot
// path.
func SafeID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}

// UUIDv7Time is the creation time, in Unix milliseconds, of a UUIDv7.
func UUIDv7Time(id string) (int64, bool) {
	if !IsUUID(id) || id[14] != '7' {
		return 0, false
	}
	b, err := hex.DecodeString(id[:8] + id[9:13])
	if err != nil {
		return 0, false
	}
	var ms int64
	for _, c := range b {
		ms = ms<<8 | int64(c)
	}
	return ms, true
}

// IsUUID is the 8-4-4-4-12 hex form.
func IsUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
			return false
		}
	}
	return true
}
