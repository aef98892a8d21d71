// Package transcript reads Claude Code session transcripts: the exact token
// burn of a session, scanned in O(delta) across hook calls.
//
// A transcript is JSON lines, appended asynchronously. Claude Code writes one
// line per content block of an API response and repeats the message's usage
// on each, with output_tokens growing; summing lines overcounts by about
// 1.8x. The exact figure is the sum, over distinct messages, of each
// message's final usage. This package counts each message once (keyed by
// message.id and requestId), keeps the largest value of each field, adds only
// the increase when a message's lines straddle two calls, and never counts a
// message again when /compact replays it far later in the file.
package transcript

import (
	"hash/fnv"
)

// Usage is a token count. The fields are lifetime-cumulative when they are a
// session's totals.
type Usage struct {
	In, Out, CacheCreate, CacheRead int64
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.In + v.In, u.Out + v.Out, u.CacheCreate + v.CacheCreate, u.CacheRead + v.CacheRead}
}

// Max returns the field-wise maximum of u and v.
func (u Usage) Max(v Usage) Usage {
	return Usage{max(u.In, v.In), max(u.Out, v.Out), max(u.CacheCreate, v.CacheCreate), max(u.CacheRead, v.CacheRead)}
}

// Sub returns u - v.
func (u Usage) Sub(v Usage) Usage {
	return Usage{u.In - v.In, u.Out - v.Out, u.CacheCreate - v.CacheCreate, u.CacheRead - v.CacheRead}
}

// hash64 is FNV-1a over the parts, separated so that ("ab","c") and ("a","bc") differ.
func hash64(parts ...[]byte) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return h.Sum64()
}
