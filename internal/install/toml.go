package install

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The Tables shape (Kimi Code's config.toml): every hook is a [[hooks]]
// table of its own,
//
//	[[hooks]]
//	event = "PreToolUse"
//	command = "/usr/local/bin/nb-hook --agent kimi"
//	timeout = 10
//
// No Go TOML library keeps a file's comments and layout, so the file is
// edited as text, with the same guarantees as the JSON shapes: install
// appends our tables at the end of the file, each after a blank line, and
// leaves everything before them as it was; uninstall removes exactly the
// tables whose command runs the binary, each with the blank line before it
// (the file's own bytes come back); a second install changes nothing. A
// table is ours only when it is as install writes it: a header and
// one-line key = value pairs (strings and integers), nothing that could
// hide another line of TOML. The rest of the file is read only for what
// makes [[hooks]] tables unreadable after it, which install refuses: a
// "hooks" key of the root, a [hooks] table or tables inside the hooks.

// tomlTable is one [[hooks]] table of ours: where its text is (the header
// line to the end of its last pair, without that line's newline) and its
// keys.
type tomlTable struct {
	start, end int
	keys       map[string]any
	order      []string
}

// tomlEntry is the table install writes for e.
func (a *Agent) tomlEntry(e Entry) string {
	var b strings.Builder
	b.WriteString("[[hooks]]\nevent = " + tomlQuote(e.Event) + "\ncommand = " + tomlQuote(e.Command))
	if t := a.timeout(e); t != nil {
		b.WriteString("\ntimeout = " + strconv.FormatInt(min(max(*t, 1), 600), 10)) // Kimi accepts 1–600
	}
	return b.String()
}

// tomlQuote is s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlInstall: the file with our tables, as wanted, at its end.
func (s Spec) tomlInstall(a *Agent, entries []Entry, data []byte) ([]byte, error) {
	ours, err := s.tomlTables(data)
	if err != nil {
		return nil, err
	}
	if len(ours) == len(entries) {
		same := true
		for i, t := range ours {
			same = same && string(data[t.start:t.end]) == a.tomlEntry(entries[i])
		}
		if same {
			return data, nil // exactly so already: left where they are
		}
	}
	base := tomlRemove(data, ours)
	if len(entries) == 0 {
		return base, nil
	}
	var b bytes.Buffer
	b.Write(base)
	// Each table after a blank line; a file without its last newline
	// gets it here, and keeps going without one (uninstall takes back
	// both, and gives the bytes back).
	switch {
	case len(base) == 0:
	case base[len(base)-1] == '\n':
		b.WriteByte('\n')
	default:
		b.WriteString("\n\n")
	}
	for i, e := range entries {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(a.tomlEntry(e))
	}
	if len(base) == 0 || base[len(base)-1] == '\n' {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// tomlRemove is data without the tables: each goes with the newline and
// blank line before it (what install wrote before it); a table at the
// start of the file, with the blank line after it (or the newline that
// ends the file).
func tomlRemove(data []byte, tables []tomlTable) []byte {
	out := append([]byte(nil), data...)
	for i := len(tables) - 1; i >= 0; i-- {
		start, end := tables[i].start, tables[i].end
		switch {
		case start >= 2 && string(out[start-2:start]) == "\n\n":
			start -= 2
		case start == 0 && strings.HasPrefix(string(out[end:]), "\n\n"):
			end += 2
		case start == 0 && string(out[end:]) == "\n":
			end++
		}
		out = append(out[:start], out[end:]...)
	}
	return out
}

// tomlTables finds our tables, in file order, and refuses a file after
// which no [[hooks]] table can be read as one.
func (s Spec) tomlTables(data []byte) ([]tomlTable, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("not UTF-8")
	}
	var ours []tomlTable
	root := true // before the first table header
	var cur *tomlTable
	lines := bytes.SplitAfter(data, []byte("\n"))
	off := 0
	for i, raw := range lines {
		start := off
		off += len(raw)
		line := strings.TrimRight(string(raw), "\r\n")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			if cur != nil && cur.keys != nil {
				ours = append(ours, *cur)
			}
			cur = nil
			header, ok := tomlHeader(t)
			if !ok {
				continue // an array value's line, or an odd header: not ours
			}
			root = false
			if header == "[[hooks]]" && t == header && line == t {
				cur = &tomlTable{start: start, end: start + len(line), keys: map[string]any{}}
			} else if header == "[hooks]" || strings.HasPrefix(header, "[hooks.") || strings.HasPrefix(header, "[[hooks.") {
				// hooks a table, or tables inside the hooks: no [[hooks]]
				// table Kimi reads can follow.
				return nil, fmt.Errorf("line %d: %s: Kimi Code reads its hooks from [[hooks]] tables of event, matcher, command and timeout alone", i+1, header)
			}
			continue
		}
		if root && tomlRootHooks(t) {
			return nil, fmt.Errorf(`line %d: "hooks" is set here; Kimi Code reads its hooks from [[hooks]] tables`, i+1)
		}
		if cur == nil || cur.keys == nil {
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue // a blank line or a comment inside the table
		}
		k, v, ok := tomlPair(line)
		if _, dup := cur.keys[k]; !ok || dup {
			cur.keys = nil // not as install writes it: not ours
			continue
		}
		cur.keys[k], cur.order, cur.end = v, append(cur.order, k), start+len(line)
	}
	if cur != nil && cur.keys != nil {
		ours = append(ours, *cur)
	}
	var out []tomlTable
	for _, t := range ours {
		c, _ := t.keys["command"].(string)
		if len(t.order) > 0 && s.owns(c) && tomlHookKeys(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// tomlHookKeys reports whether the table has a hook's keys and no others.
func tomlHookKeys(t tomlTable) bool {
	for _, k := range t.order {
		switch k {
		case "event", "command", "matcher":
			if _, ok := t.keys[k].(string); !ok {
				return false
			}
		case "timeout":
			if _, ok := t.keys[k].(int64); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// tomlHeader is a table header line as "[[a.b]]" or "[a.b]", its keys
// unquoted and without spaces or comment; ok is false for a line that is
// not one (an array value's next line).
func tomlHeader(t string) (string, bool) {
	double := strings.HasPrefix(t, "[[")
	open, end := "[", "]"
	if double {
		open, end = "[[", "]]"
	}
	keys, rest, ok := tomlKeyPath(t[len(open):])
	rest, found := strings.CutPrefix(strings.TrimLeft(rest, " \t"), end)
	rest = strings.TrimLeft(rest, " \t")
	if !ok || !found || rest != "" && !strings.HasPrefix(rest, "#") {
		return "", false
	}
	return open + strings.Join(keys, ".") + end, true
}

// tomlRootHooks reports whether a line of the root sets "hooks" (hooks =,
// hooks.x =, "hooks" =).
func tomlRootHooks(t string) bool {
	keys, rest, ok := tomlKeyPath(t)
	return ok && keys[0] == "hooks" && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=")
}

// tomlKeyPath reads the dotted key s begins with (bare, "basic" or
// 'literal' keys, spaces around the dots): its keys and what follows.
func tomlKeyPath(s string) (keys []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		var k string
		switch {
		case strings.HasPrefix(s, `"`):
			v, n, ok := tomlBasic(s)
			if !ok {
				return nil, "", false
			}
			k, s = v, s[n:]
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			k, s = s[1:1+end], s[2+end:]
		default:
			n := 0
			for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9' || s[n] == '_' || s[n] == '-') {
				n++
			}
			if n == 0 {
				return nil, "", false
			}
			k, s = s[:n], s[n:]
		}
		keys = append(keys, k)
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, ".") {
			return keys, s, true
		}
		s = t[1:]
	}
}

// tomlPair reads a one-line bare-key pair whose value is a string or an
// integer, as install writes it (a comment may follow).
func tomlPair(line string) (key string, v any, ok bool) {
	k, rest, found := strings.Cut(line, "=")
	key = strings.TrimSpace(k)
	if !found || key == "" || strings.TrimLeft(key, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return "", nil, false
	}
	rest = strings.TrimSpace(rest)
	var val any
	var tail string
	switch {
	case strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''"):
		return "", nil, false // multi-line
	case strings.HasPrefix(rest, `"`):
		s, n, ok := tomlBasic(rest)
		if !ok {
			return "", nil, false
		}
		val, tail = s, rest[n:]
	case strings.HasPrefix(rest, "'"):
		end := strings.IndexByte(rest[1:], '\'')
		if end < 0 {
			return "", nil, false
		}
		val, tail = rest[1:1+end], rest[2+end:]
	default:
		num, _, _ := strings.Cut(rest, "#") // a comment may follow
		num = strings.TrimSpace(num)
		i, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return "", nil, false // underscores, hex, a float…: not as install writes it
		}
		val = i
	}
	tail = strings.TrimSpace(tail)
	if tail != "" && !strings.HasPrefix(tail, "#") {
		return "", nil, false
	}
	return key, val, true
}

// tomlBasic reads the basic string s begins with: its value and length.
func tomlBasic(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case '"', '\\':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'e':
				b.WriteByte(0x1b)
			case 'u', 'U':
				n := 4
				if s[i] == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", 0, false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", 0, false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", 0, false
			}
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", 0, false
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}
