// Package coral speaks Coral's PULSE protocol: `||PULSE:STATUS text||` and
// `||PULSE:SUMMARY text||` lines in the terminal log of a session Coral
// launched, which its dashboard shows as the session's "Status:" and "Goal:"
// lines, and the events API that takes what the log parser ignores
// (confidence, and the goal again).
//
// What Coral's code really does is in docs/reference/trailboss-vpet-coral.md
// §3; this package follows it where the protocol text (Coral's PROTOCOL.md)
// says less or otherwise: the log is
// $TMPDIR/<type>_coral_<uuid>.log (not /tmp/<type>_coral_<name>.log), the Go
// parser has no CONFIDENCE rule at all, and it drops a value holding both
// '<' and '>'.
package coral

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hookwire/hookwire/internal/text"
)

// The tag kinds.
const (
	Status     = "STATUS"
	Summary    = "SUMMARY"
	Confidence = "CONFIDENCE"
)

// Length limits, in runes, from the protocol: Coral's rejoining of wrapped
// lines gives up on a tag longer than a few terminal lines.
const (
	MaxStatus  = 60
	MaxSummary = 120
	// MaxConfidence bounds a confidence reason; the protocol sets none, so
	// it gets a summary's.
	MaxConfidence = MaxSummary
)

// Tag is one PULSE tag. Its Text is already clean (see Clean).
type Tag struct {
	Kind string
	Text string
}

// String is the tag as Coral's regexes read it: `||PULSE:KIND text||`.
func (t Tag) String() string { return "||PULSE:" + t.Kind + " " + t.Text + "||" }

// Frame returns the bytes appended to a terminal log for tags, all in one
// write: each tag inside an APC string, ESC _ … ESC \.
//
// Coral replays the log into its web terminal (xterm.js) as it is, so
// whatever is appended is painted over the agent's screen. A terminal reads
// an APC string as a command addressed to some other program and shows
// nothing of it, moving no cursor: the screen stays what the agent drew.
// Coral's parser, on the other hand, reads the log line by line with its
// ANSI rule, which knows only OSC, CSI and two-byte escapes: "ESC _" and
// "ESC \" each become a space and the tag between them stays, on whatever
// line the agent's output had reached, where its regexes find it. Clean
// leaves no ESC, control or C1 character in a tag's text that could end
// the string early.
func Frame(tags ...Tag) []byte {
	var b []byte
	for _, t := range tags {
		b = append(b, apcStart...)
		b = append(b, t.String()...)
		b = append(b, apcEnd...)
	}
	return b
}

// The APC string's delimiters: ESC _ and the string terminator ESC \.
const (
	apcStart = "\x1b_"
	apcEnd   = "\x1b\\"
)

// StatusText is s made safe for a STATUS tag and clipped to MaxStatus runes.
func StatusText(s string) string { return clip(Clean(text.RedactFor(s, MaxStatus)), MaxStatus) }

// SummaryText is s made safe for a SUMMARY tag and clipped to MaxSummary runes.
func SummaryText(s string) string { return clip(Clean(text.RedactFor(s, MaxSummary)), MaxSummary) }

// Clean makes s one value that Coral's parser reads back exactly:
//
//   - ANSI escape sequences go whole (Coral would turn each into a space and
//     leave the rest of it, "[31m", in the text), and so do invisible format
//     characters (bidirectional overrides, zero-width spaces) that would make
//     the dashboard show something other than what was sent;
//   - newlines and every other control character become spaces, since the
//     value must stay on its one line, and whitespace collapses to single
//     spaces, as Coral's cleanMatch does;
//   - no "||": a run of '|' becomes one, and a '|' at the end goes, since
//     the closing "||" would otherwise end the value early;
//   - a value holding both '<' and '>' would be dropped whole (Coral skips
//     them as template echoes), so its angle brackets become ‹ and ›.
//
// The result may be empty.
func Clean(s string) string {
	s = text.OneLine(stripInvisible(s))
	if strings.Contains(s, "||") {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '|' && i > 0 && s[i-1] == '|' {
				continue
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	s = strings.TrimRight(s, "| ")
	if strings.Contains(s, "<") && strings.Contains(s, ">") {
		s = strings.NewReplacer("<", "‹", ">", "›").Replace(s)
	}
	return s
}

// clip cuts s to max runes with an ellipsis, never leaving a space before it.
func clip(s string, max int) string {
	c := text.Clip(s, max)
	if c != s {
		c = strings.TrimRight(strings.TrimSuffix(c, text.Ellipsis), " ") + text.Ellipsis
	}
	return c
}

// stripInvisible removes ANSI escape sequences (7-bit ESC forms and the C1
// CSI, OSC and string introducers) and Unicode format characters other than
// the zero-width joiner that emoji sequences need. Other control characters
// are left for text.OneLine to turn into spaces.
func stripInvisible(s string) string {
	if !hasInvisible(s) {
		return s // the common case: no allocation
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == 0x9b: // C1 CSI
			i += n + csiLen(s[i+n:])
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i += n + stringLen(s[i+n:])
			continue
		case r != '\u200d' && unicode.Is(unicode.Cf, r):
			i += n
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

func hasInvisible(s string) bool {
	for _, r := range s {
		if r == 0x1b || 0x90 <= r && r <= 0x9f || r >= 0xad && r != '\u200d' && unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}

// escapeLen is the length of the escape sequence at the start of s (which
// starts with ESC): CSI "ESC [ params final", OSC/DCS/SOS/PM/APC strings up
// to BEL or "ESC \", or ESC and one more byte.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', 'X', '^', '_':
		return 2 + stringLen(s[2:])
	}
	_, n := utf8.DecodeRuneInString(s[1:])
	return 1 + n
}

// csiLen is the length of a CSI sequence's parameters, intermediates and
// final byte.
func csiLen(s string) int {
	i := 0
	for i < len(s) && 0x20 <= s[i] && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && 0x40 <= s[i] && s[i] <= 0x7e {
		i++
	}
	return i
}

// stringLen is the length of a control string's body and terminator: BEL,
// "ESC \" or the C1 ST; unterminated, the rest of s.
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c: // U+009C ST
			return i + 2
		}
	}
	return len(s)
}
