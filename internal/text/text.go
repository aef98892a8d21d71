// Package text bounds and sanitizes the strings every target puts on its wire.
//
// Each target has its own rules about which bytes may appear (a CSV field of a
// space-free argv token, a one-line tag in a terminal log, a JSON string), but
// they share the same few operations: clip by runes with an ellipsis, keep a
// character class, collapse whitespace. They live here once.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks a clipped text.
const Ellipsis = "…"

// Clip returns s cut to at most max runes, the last of which is Ellipsis when
// anything was cut. Invalid UTF-8 is replaced first, so the result is always
// valid UTF-8. max <= 0 yields "".
func Clip(s string, max int) string {
	if max <= 0 {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + Ellipsis
		}
		n++
	}
	return s
}

// ClipBytes returns s cut to at most max bytes on a rune boundary, with
// Ellipsis appended when anything was cut (so the result may be up to
// max+len(Ellipsis) bytes, as the Coucou relay does it).
func ClipBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Ellipsis
}

// Keep returns s with every byte not accepted by ok deleted, like tr -cd.
func Keep(s string, ok func(byte) bool) string {
	i := 0
	for i < len(s) && ok(s[i]) {
		i++
	}
	if i == len(s) {
		return s // the common case: nothing to delete, no allocation
	}
	b := []byte(s[:i])
	for ; i < len(s); i++ {
		if ok(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// Token reports whether c may appear in a Pulse CSV field: the class
// [A-Za-z0-9._?-] of the reference emitter's `tr -cd 'A-Za-z0-9._?-'`.
func Token(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == '?' || c == '-'
}

// OneLine returns s as a single line of printable text: control characters
// (newlines, tabs, escapes, C1 controls) and invalid UTF-8 become spaces, runs
// of whitespace collapse to one space, and the ends are trimmed. An ANSI escape
// sequence loses its ESC byte, which is what makes it inert.
func OneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) ||
			r == '\u2028' || r == '\u2029' || r == '\uFEFF' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
