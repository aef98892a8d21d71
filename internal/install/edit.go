package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// doc is a settings file being edited in place: comments, key order and
// indentation that are not ours stay as they are.
type doc struct {
	root   hujson.Value
	indent string // one level of the file's indentation
	bom    bool   // the file began with a byte order mark, which stays
}

func parseDoc(data []byte, strict bool) (*doc, error) {
	bom := bytes.HasPrefix(data, []byte("\xEF\xBB\xBF"))
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n}\n") // a new file: its members go one a line
	}
	if strict && !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, err
	}
	if trailingComma(&root) {
		return nil, fmt.Errorf("a trailing comma, which the agent's parser rejects")
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the top level is not an object")
	}
	return &doc{root: root, indent: detectIndent(data), bom: bom}, nil
}

// trailingComma reports a comma before a closing bracket or brace, which
// hujson accepts and JSON parsers (with or without comments) do not.
func trailingComma(v *hujson.Value) bool {
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			if trailingComma(&c.Members[i].Value) {
				return true
			}
		}
		return len(c.Members) > 0 && c.Members[len(c.Members)-1].Value.AfterExtra != nil
	case *hujson.Array:
		for i := range c.Elements {
			if trailingComma(&c.Elements[i]) {
				return true
			}
		}
		return len(c.Elements) > 0 && c.Elements[len(c.Elements)-1].AfterExtra != nil
	}
	return false
}

// detectIndent is the first indentation found in the file, else two spaces.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n")[1:] {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

// bytes is the document as it now is: what no edit touched is byte for
// byte what was read (a file that did not end with a newline still does
// not).
func (d *doc) bytes() []byte {
	b := d.root.Pack()
	if d.bom {
		b = append([]byte("\xEF\xBB\xBF"), b...)
	}
	return b
}

// value decodes a part of the document (comments and all) as plain JSON.
func value(v *hujson.Value) any {
	c := v.Clone()
	c.Standardize()
	var out any
	json.Unmarshal(c.Pack(), &out)
	return out
}

func (d *doc) pad(depth int) hujson.Extra {
	return hujson.Extra("\n" + strings.Repeat(d.indent, depth))
}

// newValue renders v at depth, indented like the file.
func (d *doc) newValue(v any, depth int) hujson.Value {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a command's > and & stay as the user wrote them
	enc.SetIndent(strings.Repeat(d.indent, depth), d.indent)
	if err := enc.Encode(v); err != nil {
		panic(err) // our own values always marshal
	}
	nv, err := hujson.Parse(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if err != nil {
		panic(err)
	}
	return nv
}

// member returns obj's member named key, or nil.
func member(obj *hujson.Object, key string) *hujson.Value {
	for i := range obj.Members {
		if name, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && name.String() == key {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// setMember adds key (at depth, inside obj) with v, or replaces its value.
// A new member goes at the end, on a line of its own if obj's members are
// written one a line, else on the same line after the others; nothing else
// of obj changes, so that removing the member gives back obj's bytes. It
// returns the value and the depth it was rendered at.
func (d *doc) setMember(obj *hujson.Object, key string, v any, depth int) (*hujson.Value, int) {
	if m := member(obj, key); m != nil {
		nv := d.newValue(v, depth)
		nv.BeforeExtra, nv.AfterExtra = m.BeforeExtra, m.AfterExtra
		*m = nv
		return m, depth
	}
	lined := bytes.Contains(obj.AfterExtra, []byte("\n"))
	for i := range obj.Members {
		lined = lined || bytes.Contains(obj.Members[i].Name.BeforeExtra, []byte("\n"))
	}
	name := hujson.Value{BeforeExtra: d.pad(depth), Value: hujson.String(key)}
	if !lined {
		depth = max(depth-1, 0) // inline: the value closes at obj's own indentation
		name.BeforeExtra = nil
		if len(obj.Members) > 0 {
			name.BeforeExtra = hujson.Extra(" ")
		}
	}
	nv := d.newValue(v, depth)
	nv.BeforeExtra = hujson.Extra(" ")
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: name, Value: nv})
	return &obj.Members[len(obj.Members)-1].Value, depth
}

// removeMember deletes key from obj.
func removeMember(obj *hujson.Object, key string) bool {
	for i := range obj.Members {
		if name, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && name.String() == key {
			removeAt(obj, i)
			return true
		}
	}
	return false
}

// removeAt deletes obj's i-th member.
func removeAt(obj *hujson.Object, i int) {
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if n := len(obj.Members); n > 0 && i == n {
		obj.Members[n-1].Value.AfterExtra = nil // no trailing comma
	}
}

// appendElement adds v at the end of arr, which is at depth: on a line of
// its own in a list written one element a line, else on the same line
// after the others ([a, NEW], NEW closing at the list's indentation), so
// that removing it gives back arr's bytes. An empty list is opened up.
func (d *doc) appendElement(arr *hujson.Array, v any, depth int) {
	lined := len(arr.Elements) == 0 || bytes.Contains(arr.AfterExtra, []byte("\n"))
	for i := range arr.Elements {
		lined = lined || bytes.Contains(arr.Elements[i].BeforeExtra, []byte("\n"))
	}
	if !lined {
		nv := d.newValue(v, depth)
		nv.BeforeExtra = hujson.Extra(" ")
		arr.Elements = append(arr.Elements, nv)
		return
	}
	nv := d.newValue(v, depth+1)
	nv.BeforeExtra = d.pad(depth + 1)
	arr.Elements = append(arr.Elements, nv)
	if len(arr.Elements) == 1 {
		d.closeOnNewLine(&arr.AfterExtra, depth)
	}
}

// removeElements deletes the elements for which drop is true.
func removeElements(arr *hujson.Array, drop func(i int) bool) int {
	kept := arr.Elements[:0]
	removed := 0
	for i, e := range arr.Elements {
		if drop(i) {
			removed++
			continue
		}
		kept = append(kept, e)
	}
	arr.Elements = kept
	if n := len(kept); n > 0 {
		kept[n-1].AfterExtra = nil // no trailing comma
	}
	return removed
}

// closeOnNewLine puts the closing bracket of a container on its own line.
func (d *doc) closeOnNewLine(after *hujson.Extra, depth int) {
	if !bytes.Contains(*after, []byte("\n")) {
		*after = d.pad(max(depth, 0))
	}
}
