package text

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"héllo wörld", 6, "héllo…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"👍👍👍", 2, "👍…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
		{"a\xffb", 10, "a\uFFFDb"},
	} {
		if got := Clip(tc.in, tc.max); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestClipBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 4, "hell…"},
		{"héllo", 2, "h…"}, // é is two bytes: never cut inside it
		{"日本", 4, "日…"},
		{"日本", 2, "…"},
	} {
		if got := ClipBytes(tc.in, tc.max); got != tc.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestKeep(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-4-6": "claude-opus-4-6",
		"a b,c;d":         "abcd",
		"x\ny\tz":         "xyz",
		"ses_ab12_CD":     "ses_ab12_CD",
		"é?.":             "?.",
		"":                "",
	} {
		if got := Keep(in, Token); got != want {
			t.Errorf("Keep(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"  Running   go test  ":         "Running go test",
		"line one\nline two\r\n":        "line one line two",
		"\x1b[31mred\x1b[0m":            "[31mred [0m",
		"tab\there\x00nul":              "tab here nul",
		"bad \xff utf8":                 "bad utf8",
		"sep\u2028para\u2029end\u0085x": "sep para end x",
		"":                              "",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSanitizers(f *testing.F) {
	for _, s := range []string{"", "a b", "日本語", "\x1b[0m\n", "\xff\xfe", "a,b c"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%200 + 1
		if n < 1 {
			n = -n + 1
		}
		c := Clip(s, n)
		if !utf8.ValidString(c) || utf8.RuneCountInString(c) > n {
			t.Fatalf("Clip(%q, %d) = %q", s, n, c)
		}
		if cb := ClipBytes(s, n); len(cb) > n+len(Ellipsis) || (utf8.ValidString(s) && !utf8.ValidString(cb)) {
			t.Fatalf("ClipBytes(%q, %d) = %q", s, n, cb)
		}
		k := Keep(s, Token)
		for i := 0; i < len(k); i++ {
			if !Token(k[i]) {
				t.Fatalf("Keep(%q) kept %q", s, k[i])
			}
		}
		if r := Redact(s); Redact(r) != r || utf8.ValidString(s) && !utf8.ValidString(r) {
			t.Fatalf("Redact(%q) = %q, again %q", s, r, Redact(r))
		}
		o := OneLine(s)
		if !utf8.ValidString(o) || strings.Contains(o, "  ") || strings.TrimSpace(o) != o {
			t.Fatalf("OneLine(%q) = %q", s, o)
		}
		for _, r := range o {
			if unicode.IsControl(r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("OneLine(%q) kept %U", s, r)
			}
		}
	})
}
