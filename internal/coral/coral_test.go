package coral

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Running go test ./...", "Running go test ./..."},
		{"  two\n\tlines\r\nhere  ", "two lines here"},
		{"a || b", "a | b"},
		{"a ||| b|||", "a | b"},
		{"||PULSE:STATUS fake||", "|PULSE:STATUS fake"},
		{"ends with a pipe |", "ends with a pipe"},
		{"\x1b[31mred\x1b[0m text", "red text"},
		{"\x1b]0;title\x07after", "after"},
		{"\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\u009b1mC1 csi", "C1 csi"},
		{"bell\x07 and \x00nul", "bell and nul"},
		{"bidi \u202egnirts\u202c zero\u200bwidth", "bidi gnirts zerowidth"},
		{"family 👨\u200d👩\u200d👧", "family 👨\u200d👩\u200d👧"},
		{"Map<String> x", "Map‹String› x"},
		{"a < b", "a < b"},
		{"a > b", "a > b"},
		{"<b>bold</b>", "‹b›bold‹/b›"},
		{"if a < b && c > d", "if a ‹ b && c › d"},
		{"bad \xff utf8", "bad utf8"},
		{"", ""},
		{" \n\x1b[2K\r ", ""},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", 200)
	if got := StatusText(long); utf8.RuneCountInString(got) != MaxStatus || !strings.HasSuffix(got, "…") {
		t.Errorf("status %q (%d runes)", got, utf8.RuneCountInString(got))
	}
	if got := SummaryText(long); utf8.RuneCountInString(got) != MaxSummary {
		t.Errorf("summary of %d runes", utf8.RuneCountInString(got))
	}
	// No space is left before the ellipsis.
	if got := StatusText(strings.Repeat("word ", 20)); got != strings.TrimSpace(strings.Repeat("word ", 12))+"…" {
		t.Errorf("got %q", got)
	}
	exact := strings.Repeat("x", MaxStatus)
	if got := StatusText(exact); got != exact {
		t.Errorf("a status of exactly %d runes was cut: %q", MaxStatus, got)
	}
}

func TestFrame(t *testing.T) {
	got := string(Frame(Tag{Summary, "Fix the build"}, Tag{Status, "Thinking"}))
	want := "\x1b_||PULSE:SUMMARY Fix the build||\x1b\\\x1b_||PULSE:STATUS Thinking||\x1b\\"
	if got != want {
		t.Errorf("Frame = %q, want %q", got, want)
	}
}

// FuzzClean holds the rules Coral's parser needs, whatever the input.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a||b", "\x1b[31mx", "<a>", "||||", "|", "\u009b", "\x1b]", "a\r\nb", "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, got := range []string{StatusText(in), SummaryText(in)} {
			if !utf8.ValidString(got) {
				t.Fatalf("invalid UTF-8 %q", got)
			}
			if strings.Contains(got, "||") || strings.HasSuffix(got, "|") {
				t.Fatalf("%q holds || or ends with |", got)
			}
			if strings.Contains(got, "<") && strings.Contains(got, ">") {
				t.Fatalf("%q holds both < and >", got)
			}
			if got != strings.Join(strings.Fields(got), " ") {
				t.Fatalf("%q: whitespace not collapsed", got)
			}
			for _, r := range got {
				if unicode.IsControl(r) || r != '\u200d' && unicode.Is(unicode.Cf, r) {
					t.Fatalf("%q holds %U", got, r)
				}
			}
		}
		if n := utf8.RuneCountInString(StatusText(in)); n > MaxStatus {
			t.Fatalf("status of %d runes", n)
		}
		if n := utf8.RuneCountInString(SummaryText(in)); n > MaxSummary {
			t.Fatalf("summary of %d runes", n)
		}
		if c := Clean(in); Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q: %q then %q", in, c, Clean(c))
		}
	})
}

func TestConfidences(t *testing.T) {
	msg := "Done.\n||PULSE:CONFIDENCE Low Unfamiliar with this auth library — guessing||\n" +
		"||PULSE:CONFIDENCE medium nope|| ||PULSE:CONFIDENCE high Follows\nthe repository pattern|| ||PULSE:CONFIDENCE Low||" +
		" ||PULSE:CONFIDENCE low unterminated"
	got := Confidences(msg, 3)
	want := []Tag{{Confidence, "Low Unfamiliar with this auth library — guessing"}, {Confidence, "High Follows the repository pattern"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Confidences(strings.Repeat("||PULSE:CONFIDENCE Low x|| ", 10), 3); len(got) != 3 {
		t.Errorf("%d tags, want at most 3", len(got))
	}
}
