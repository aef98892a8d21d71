package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdCmpHTTP: cmphttp GOT WANT compares the requests an HTTP fake recorded
// with a golden: each request's line and headers exactly, in order, and its
// JSON body by meaning (as cmpjson does, "<any>" matching any value). $VARS
// in WANT are expanded, and a WANT header whose value is <any> matches any
// value (Content-Length, when the body holds times). It is for wire formats
// whose body holds a clock or a pid: the head is still exact bytes.
func cmdCmpHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmphttp GOT WANT")
	}
	got, err := splitRecorded([]byte(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	want, err := splitGolden([]byte(os.Expand(ts.ReadFile(args[1]), ts.Getenv)))
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	diff := compareRequests(got, want)
	if (diff == "") == neg {
		if neg {
			ts.Fatalf("%s and %s are the same requests", args[0], args[1])
		}
		ts.Logf("got:\n%s\nwant:\n%s", showRequests(got), showRequests(want))
		ts.Fatalf("%s and %s differ: %s", args[0], args[1], diff)
	}
}

type httpRequest struct {
	head []string
	body any
}

// splitRecorded reads a fake's record: head lines, a blank line, the body
// (Content-Length bytes, else one line) and a newline, per request.
func splitRecorded(b []byte) ([]httpRequest, error) {
	var reqs []httpRequest
	for len(bytes.TrimSpace(b)) > 0 {
		end := bytes.Index(b, []byte("\n\n"))
		if end < 0 {
			return nil, fmt.Errorf("request %d: no end of head", len(reqs)+1)
		}
		head := strings.Split(string(b[:end]), "\n")
		b = b[end+2:]
		n := bytes.IndexByte(b, '\n')
		if n < 0 {
			n = len(b)
		}
		for _, h := range head {
			if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, "Content-Length") {
				if l, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && l <= len(b) {
					n = l
				}
			}
		}
		body, err := decodeBody(b[:n])
		if err != nil {
			return nil, fmt.Errorf("request %d: %v", len(reqs)+1, err)
		}
		reqs = append(reqs, httpRequest{head: head, body: body})
		b = bytes.TrimPrefix(b[n:], []byte("\n"))
	}
	return reqs, nil
}

// splitGolden reads a golden: head lines, a blank line and one JSON value
// (or nothing) per request.
func splitGolden(b []byte) ([]httpRequest, error) {
	var reqs []httpRequest
	b = bytes.TrimLeft(b, "\n")
	for len(bytes.TrimSpace(b)) > 0 {
		end := bytes.Index(b, []byte("\n\n"))
		if end < 0 {
			return nil, fmt.Errorf("request %d: no end of head", len(reqs)+1)
		}
		req := httpRequest{head: strings.Split(string(b[:end]), "\n")}
		b = bytes.TrimLeft(b[end+2:], " \t\r\n")
		if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if err := dec.Decode(&req.body); err != nil {
				return nil, fmt.Errorf("request %d: body: %v", len(reqs)+1, err)
			}
			b = bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")
		}
		reqs = append(reqs, req)
	}
	return reqs, nil
}

func decodeBody(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	vs, err := decodeAll(b)
	if err != nil || len(vs) != 1 {
		return nil, fmt.Errorf("body is not one JSON value: %q", b)
	}
	return vs[0], nil
}

// compareRequests says how got differs from want, or "".
func compareRequests(got, want []httpRequest) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d requests, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if len(g.head) != len(w.head) {
			return fmt.Sprintf("request %d: %d head lines, want %d", i+1, len(g.head), len(w.head))
		}
		for j := range w.head {
			if !headerMatch(g.head[j], w.head[j]) {
				return fmt.Sprintf("request %d: %q, want %q", i+1, g.head[j], w.head[j])
			}
		}
		if !match(g.body, w.body) {
			return fmt.Sprintf("request %d: the bodies differ", i+1)
		}
	}
	return ""
}

func headerMatch(got, want string) bool {
	if k, v, ok := strings.Cut(want, ": "); ok && v == "<any>" {
		gk, _, ok := strings.Cut(got, ": ")
		return ok && gk == k
	}
	return got == want
}

func showRequests(reqs []httpRequest) string {
	var b strings.Builder
	for _, r := range reqs {
		b.WriteString(strings.Join(r.head, "\n") + "\n\n")
		if r.body != nil {
			b.WriteString(pretty([]any{r.body}))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cmdEnvFile: env-file NAME FILE sets $NAME to FILE's contents without its
// final newline: a value the program under test wrote (a generated token),
// for cmpenv, cmphttp or grep to expect.
func cmdEnvFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: env-file NAME FILE")
	}
	ts.Setenv(args[0], strings.TrimSuffix(ts.ReadFile(args[1]), "\n"))
}
