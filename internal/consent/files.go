package consent

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/safefile"
	"github.com/hookwire/hookwire/internal/state"
)

// maxAllow bounds the allowlist read on a tool call (a row is a key and a
// time: thousands of rows fit).
const maxAllow = 4 << 20

// readSmall reads a regular file of at most max bytes, never blocking on
// a FIFO (the mode file, the allowlist: the user's own, links followed as
// consent.py follows them).
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New(path + ": not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// Allowed reports whether key is in the allowlist: a row whose "key" is
// exactly it (consent.py's _allowed: blank lines and rows that do not
// parse are skipped).
func Allowed(getenv func(string) string, key string) bool {
	dir := StateDir(getenv)
	if dir == "" {
		return false
	}
	b, err := readSmall(filepath.Join(dir, "allow.jsonl"), maxAllow)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxAllow)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || !gjson.ValidBytes(line) {
			continue
		}
		if k := gjson.GetBytes(line, "key"); k.Type == gjson.String && k.Str == key {
			return true
		}
	}
	return false
}

// LearnRow is one learn.jsonl row, as consent.py's _record writes it:
// {"key", "tool", "description", "at"}, the description as the tool's
// input holds it ("" when it has none), at in Unix seconds.
func LearnRow(tool, key string, description gjson.Result, at time.Time) string {
	var b strings.Builder
	b.WriteString(`{"key": `)
	pyString(&b, key)
	b.WriteString(`, "tool": `)
	pyString(&b, tool)
	b.WriteString(`, "description": `)
	pyOr(&b, description)
	b.WriteString(`, "at": `)
	b.WriteString(strconv.FormatInt(at.Unix(), 10))
	b.WriteString("}\n")
	return b.String()
}

// pyOr writes v, or "" where the input has no such field (dict.get's
// default).
func pyOr(b *strings.Builder, v gjson.Result) {
	if !v.Exists() {
		b.WriteString(`""`)
		return
	}
	pyValue(b, v, false)
}

// learn appends a row for the call to learn.jsonl, beside the mode
// (created 0600). A key of several lines is not recorded: it never
// recurs verbatim, and promoting it would only bloat the allowlist.
func learn(dir, row, key string) error {
	if strings.Contains(key, "\n") {
		return nil
	}
	if err := state.SafeDir(dir); err != nil {
		return err
	}
	f, err := safefile.OpenLog(filepath.Join(dir, "learn.jsonl"))
	if err != nil {
		return err
	}
	_, err = f.WriteString(row)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Request is what the panel reads in <id>.req: consent.py's request, its
// fields in its order.
type Request struct {
	ID, Nonce, Tool, Key string
	// Command, Path, Description and Cwd are the values as the agent sent
	// them (a missing one is "").
	Command, Path, Description, Cwd gjson.Result
	// Session is the session's Pulse slot (its id's first part).
	Session string
}

// JSON is the request as json.dump writes it: no newline.
func (r Request) JSON() []byte {
	var b strings.Builder
	field := func(name string, first bool) {
		if !first {
			b.WriteString(", ")
		}
		pyString(&b, name)
		b.WriteString(": ")
	}
	b.WriteByte('{')
	field("id", true)
	pyString(&b, r.ID)
	field("nonce", false)
	pyString(&b, r.Nonce)
	field("tool", false)
	pyString(&b, r.Tool)
	field("key", false)
	pyString(&b, r.Key)
	field("command", false)
	pyOr(&b, r.Command)
	field("path", false)
	pyOr(&b, r.Path)
	field("description", false)
	pyOr(&b, r.Description)
	field("cwd", false)
	pyOr(&b, r.Cwd)
	field("session", false)
	pyString(&b, r.Session)
	b.WriteByte('}')
	return []byte(b.String())
}

// pathOf is consent.py's `tool_input.get("file_path") or
// tool_input.get("notebook_path", "")`: Python's truth, so an empty
// file_path gives way too.
func pathOf(input gjson.Result) gjson.Result {
	if fp := input.Get("file_path"); truthy(fp) {
		return fp
	}
	return input.Get("notebook_path")
}

func truthy(v gjson.Result) bool {
	switch v.Type {
	case gjson.Null, gjson.False:
		return false
	case gjson.String:
		return v.Str != ""
	case gjson.Number:
		return v.Float() != 0
	case gjson.JSON:
		empty := true
		v.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
		return !empty
	}
	return true
}

// RequestID is the tool call's id kept to [A-Za-z0-9_-] (the panel puts it
// on a command line, and accepts no other), else 16 random hex digits.
func RequestID(toolUseID string) string {
	id := strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return r
		}
		return -1
	}, toolUseID)
	if id == "" {
		id = randomHex(8)
	}
	return id
}

// Nonce is 32 lowercase hex digits (secrets.token_hex(16)).
func Nonce() string { return randomHex(16) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// requestDir is the consent directory, made (0700) if missing: a real
// directory of ours, as its parent is, or an error.
func requestDir(dir string) (string, error) {
	if err := state.SafeDir(dir); err != nil {
		return "", err
	}
	cdir := filepath.Join(dir, "consent")
	if err := state.SafeDir(cdir); err != nil {
		return "", err
	}
	return cdir, nil
}

// writeRequest writes <id>.req (0600), never through a link and never to
// a file of someone else's.
func writeRequest(path string, r Request) error {
	f, err := safefile.Open(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(r.JSON())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// An answer is what <id>.res said.
type answer struct {
	// read: the file parsed, which ends the wait (whatever it says).
	read bool
	// decision is allow or deny when the nonce matched; else none.
	decision string
	// why says what was wrong with it, for the debug log.
	why string
}

// readAnswer reads <id>.res: nothing yet, or an answer. Its nonce is
// compared in constant time; a wrong one, or a decision other than allow
// and deny, is no decision (the agent asks its own way), not a denial: a
// forged denial would be one too. A link, or a file of someone else's,
// ends the wait with no decision.
func readAnswer(path, nonce string) answer {
	b, err := safefile.ReadFile(path)
	switch {
	case errors.Is(err, safefile.ErrUnsafe):
		return answer{read: true, why: err.Error()}
	case err != nil, !gjson.ValidBytes(b):
		return answer{} // not there yet, or half written
	}
	res := gjson.ParseBytes(b)
	if !res.IsObject() {
		return answer{read: true, why: "the answer is not a JSON object"}
	}
	got := res.Get("nonce")
	if got.Type != gjson.String || subtle.ConstantTimeCompare([]byte(got.Str), []byte(nonce)) != 1 {
		return answer{read: true, why: "the answer's nonce is not the request's"}
	}
	switch d := res.Get("decision"); {
	case d.Type == gjson.String && (d.Str == "allow" || d.Str == "deny"):
		return answer{read: true, decision: d.Str}
	default:
		return answer{read: true, why: "the answer's decision " + strconv.Quote(d.Raw) + " is neither allow nor deny"}
	}
}
