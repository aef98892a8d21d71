package testkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdCmpJSON: cmpjson GOT WANT compares two files holding one or more JSON
// values (a JSON document, or JSON lines) by meaning: key order and spacing
// do not matter, numbers compare exactly. $VARS in WANT are expanded first,
// and a WANT string "<any>" matches any value that is present (for times and
// durations).
func cmdCmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson GOT WANT")
	}
	got, err := decodeAll([]byte(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	want, err := decodeAll([]byte(os.Expand(ts.ReadFile(args[1]), ts.Getenv)))
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	equal := match(got, want)
	if equal == neg {
		if neg {
			ts.Fatalf("%s and %s are the same JSON", args[0], args[1])
		}
		ts.Logf("got:\n%s\nwant:\n%s", pretty(got), pretty(want))
		ts.Fatalf("%s and %s differ", args[0], args[1])
	}
}

// match is reflect.DeepEqual with the "<any>" wildcard.
func match(got, want any) bool {
	if want == "<any>" {
		return got != nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !match(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !match(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

func decodeAll(b []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var vs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return vs, nil
		}
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
}

func pretty(vs []any) string {
	var b bytes.Buffer
	for _, v := range vs {
		out, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintf(&b, "%s\n", out)
	}
	return b.String()
}
