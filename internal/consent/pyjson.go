package consent

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The panel's files are written by Python's json module with its defaults
// (json.dump, json.dumps): separators ", " and ": ", every character
// outside printable ASCII escaped as \uXXXX (a surrogate pair above
// U+FFFF), "/" and "<>&" left as they are, a number as Python reads and
// prints it back. An allowlist key made of a tool's input must be those
// bytes exactly, or it never matches a key consent.py wrote; so they are
// written here the same way.

// pyValue appends v as json.dumps writes the value json.loads read;
// sortKeys is sort_keys=True.
func pyValue(b *strings.Builder, v gjson.Result, sortKeys bool) {
	switch {
	case v.Type == gjson.String:
		pyString(b, v.Str)
	case v.Type == gjson.Number:
		b.WriteString(pyNumber(v.Raw))
	case v.Type == gjson.True:
		b.WriteString("true")
	case v.Type == gjson.False:
		b.WriteString("false")
	case v.IsArray():
		b.WriteByte('[')
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			if i > 0 {
				b.WriteString(", ")
			}
			i++
			pyValue(b, e, sortKeys)
			return true
		})
		b.WriteByte(']')
	case v.IsObject():
		pyObject(b, v, sortKeys)
	default:
		b.WriteString("null")
	}
}

// pyObject: a key given twice keeps its first place and its last value,
// as a dict does.
func pyObject(b *strings.Builder, v gjson.Result, sortKeys bool) {
	var keys []string
	vals := map[string]gjson.Result{}
	v.ForEach(func(k, e gjson.Result) bool {
		if _, seen := vals[k.Str]; !seen {
			keys = append(keys, k.Str)
		}
		vals[k.Str] = e
		return true
	})
	if sortKeys {
		slices.SortFunc(keys, pyCompare)
	}
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		pyString(b, k)
		b.WriteString(": ")
		pyValue(b, vals[k], sortKeys)
	}
	b.WriteByte('}')
}

// pyCompare orders strings by code point, as Python sorts str (for valid
// UTF-8, the order of the bytes).
func pyCompare(a, b string) int { return strings.Compare(a, b) }

// pyString appends s as a JSON string with ensure_ascii.
func pyString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		b.WriteByte(hex[r>>12&0xf])
		b.WriteByte(hex[r>>8&0xf])
		b.WriteByte(hex[r>>4&0xf])
		b.WriteByte(hex[r&0xf])
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			u4(0xd800 + r>>10&0x3ff)
			u4(0xdc00 + r&0x3ff)
		default:
			u4(r) // control characters, DEL, everything past ASCII
		}
	}
	b.WriteByte('"')
}

// pyNumber is a JSON number as Python prints it back: an integer as it is
// (arbitrarily long; -0 is 0), a float by repr (the shortest digits that
// read back, in exponent form past 1e16 or below 1e-4; a float too large
// is Infinity).
func pyNumber(raw string) string {
	if !strings.ContainsAny(raw, ".eE") {
		if raw == "-0" {
			return "0"
		}
		return raw
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !math.IsInf(f, 0) {
		return raw
	}
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.dddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1 // digits × 10^(decpt-len)
	switch {
	case decpt > 16 || decpt < -3:
		out := digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		return sign + out + "e" + es + pad2(x)
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// pyStr is str(value) for a scalar the way consent.py puts one in a key
// (a command or a path that is not a string); a list or an object, which
// no agent sends there, is written as JSON.
func pyStr(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		if v.Exists() {
			return "None"
		}
		return ""
	case gjson.True:
		return "True"
	case gjson.False:
		return "False"
	case gjson.Number:
		return pyNumber(v.Raw)
	}
	var b strings.Builder
	pyValue(&b, v, false)
	return b.String()
}
