package install

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hookwire/hookwire/internal/agent"
)

// Codex runs a hook from hooks.json only once the user has trusted it
// (/hooks in its TUI): it keeps, per hook, the hash of the hook as it was
// trusted, in config.toml beside hooks.json:
//
//	[hooks.state."/home/u/.codex/hooks.json:pre_tool_use:0:0"]
//	trusted_hash = "sha256:…"
//
// The key is the file, the event's snake_case label, the matcher group's
// index and the handler's index in it. The hash is Codex 0.169's own
// (hooks/src/engine/discovery.rs, config/src/fingerprint.rs): SHA-256 of the
// compact JSON, keys sorted, of {"event_name", "matcher" (events that take
// one), "hooks": [the handler, its timeout as Codex normalizes it]}. A hook
// whose hash is not the trusted one is skipped, silently: after an install
// or an upgrade (a new path, a new timeout) nothing arrives and nothing says
// why. testdata/agents/codex-0.169.0/hooks-list.json is what the real
// binary's app-server reported for a file install wrote.

// codexEvents are the events Codex 0.169 runs hooks for, by label. Others
// (StopFailure) it ignores without a word, so there is nothing to trust.
var codexEvents = map[string]bool{
	"pre_tool_use": true, "permission_request": true, "post_tool_use": true,
	"pre_compact": true, "post_compact": true, "session_start": true, "session_end": true,
	"user_prompt_submit": true, "subagent_start": true, "subagent_stop": true,
	"stop": true, "interrupt": true,
}

// A codexHook is one of our handlers in hooks.json, as Codex names and
// hashes it.
type codexHook struct {
	Event, Key, Hash string
}

// codexHooks lists the handlers of path's hooks.json that run this binary.
func (s Spec) codexHooks(path string, data []byte) ([]codexHook, error) {
	var file struct {
		Hooks map[string][]struct {
			Matcher *string           `json:"matcher"`
			Hooks   []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	var out []codexHook
	for _, event := range slices.Sorted(maps.Keys(file.Hooks)) {
		label := agent.SnakeCase(event)
		if !codexEvents[label] {
			continue
		}
		for i, g := range file.Hooks[event] {
			for j, raw := range g.Hooks {
				var h struct {
					Type          string  `json:"type"`
					Command       string  `json:"command"`
					Timeout       *uint64 `json:"timeout"`
					Async         bool    `json:"async"`
					StatusMessage *string `json:"statusMessage"`
				}
				if json.Unmarshal(raw, &h) != nil || h.Type != "command" || !s.owns(h.Command) {
					continue
				}
				out = append(out, codexHook{
					Event: event,
					Key:   fmt.Sprintf("%s:%s:%d:%d", path, label, i, j),
					Hash:  codexHash(label, g.Matcher, h.Command, h.Timeout, h.Async, h.StatusMessage),
				})
			}
		}
	}
	return out, nil
}

// codexHash is the hash Codex 0.169 trusts a command hook by.
func codexHash(label string, matcher *string, command string, timeout *uint64, async bool, status *string) string {
	t := uint64(600)
	if label == "session_end" || label == "interrupt" {
		t = 1
	}
	if timeout != nil {
		t = *timeout
	}
	t = max(t, 1)
	if label == "session_end" || label == "interrupt" {
		t = min(t, 3)
	}
	handler := map[string]any{"type": "command", "command": command, "timeout": t, "async": async}
	if status != nil {
		handler["statusMessage"] = *status
	}
	identity := map[string]any{"event_name": label, "hooks": []any{handler}}
	switch label {
	case "user_prompt_submit", "stop", "interrupt":
	default:
		if matcher != nil && strings.TrimSpace(*matcher) != "" {
			identity["matcher"] = *matcher
		}
	}
	// encoding/json sorts map keys; Rust's serde_json escapes no HTML.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(identity)
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// A hookState is what config.toml says of one hook.
type hookState struct {
	TrustedHash string
	Disabled    bool
}

// The expressions that read config.toml, compiled on first use: this
// package's init runs in every hook of every binary, which never reads it.
var (
	stateHeader = lazy(`^\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(#.*)?$`)
	stateTable  = lazy(`^\[\s*hooks\s*\.\s*state\s*\]\s*(#.*)?$`)
	inlineState = lazy(`^("(?:[^"\\]|\\.)*"|'[^']*')\s*=\s*\{(.*)\}\s*(#.*)?$`)
	hashField   = lazy(`(?:^|[\s,])trusted_hash\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')`)
	enabledOff  = lazy(`(?:^|[\s,])enabled\s*=\s*false\b`)
)

// lazy compiles expr on first use.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// codexHookStates reads the [hooks.state."KEY"] tables of config.toml, in
// the two shapes Codex and people write: a table per hook, or inline tables
// under [hooks.state]. A file that does not exist holds no state.
func codexHookStates(path string) (map[string]hookState, error) {
	out := map[string]hookState{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	key, inState := "", false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "["):
			key, inState = "", false
			if m := stateHeader().FindStringSubmatch(line); m != nil {
				key = tomlString(m[1])
			} else if stateTable().MatchString(line) {
				inState = true
			}
		case key != "":
			st := out[key]
			if m := hashField().FindStringSubmatch(line); m != nil {
				st.TrustedHash = tomlString(m[1])
			}
			if enabledOff().MatchString(line) {
				st.Disabled = true
			}
			out[key] = st
		case inState:
			if m := inlineState().FindStringSubmatch(line); m != nil {
				st := hookState{Disabled: enabledOff().MatchString(m[2])}
				if h := hashField().FindStringSubmatch(m[2]); h != nil {
					st.TrustedHash = tomlString(h[1])
				}
				out[tomlString(m[1])] = st
			}
		}
	}
	return out, sc.Err()
}

// tomlString reads a TOML basic ("…", with Go-like escapes) or literal
// ('…') string.
func tomlString(s string) string {
	if strings.HasPrefix(s, "'") {
		return strings.Trim(s, "'")
	}
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, `"`)
}

// codexTrust is doctor's look at Codex's trust in this binary's hooks.
func (s Spec) codexTrust(hooksPath string, data []byte) []Finding {
	hooks, err := s.codexHooks(hooksPath, data)
	if err != nil || len(hooks) == 0 {
		return nil
	}
	config := filepath.Join(filepath.Dir(hooksPath), "config.toml")
	states, err := codexHookStates(config)
	if err != nil {
		return []Finding{{Status: Warn, What: "codex: cannot read " + config + ": " + err.Error()}}
	}
	var untrusted, changed, disabled []string
	for _, h := range hooks {
		st := states[h.Key]
		switch {
		case st.Disabled:
			disabled = append(disabled, h.Event)
		case st.TrustedHash == "":
			untrusted = append(untrusted, h.Event)
		case st.TrustedHash != h.Hash:
			changed = append(changed, h.Event)
		}
	}
	fix := "start codex, type /hooks and trust " + s.Binary + "'s hooks (or run codex with --dangerously-bypass-hook-trust)"
	var out []Finding
	if len(untrusted) > 0 {
		out = append(out, Finding{Status: Fail, What: fmt.Sprintf("codex: %d of %s's hooks are not trusted, and Codex skips them: %s",
			len(untrusted), s.Binary, strings.Join(untrusted, ", ")), Fix: fix})
	}
	if len(changed) > 0 {
		out = append(out, Finding{Status: Fail, What: fmt.Sprintf("codex: %d of %s's hooks changed since you trusted them (%s), and Codex skips them: %s",
			len(changed), s.Binary, config, strings.Join(changed, ", ")), Fix: fix})
	}
	if len(disabled) > 0 {
		out = append(out, Finding{Status: Warn, What: fmt.Sprintf("codex: %d of %s's hooks are turned off in %s: %s",
			len(disabled), s.Binary, config, strings.Join(disabled, ", ")), Fix: "turn them on in codex's /hooks"})
	}
	if len(out) == 0 {
		out = append(out, Finding{Status: OK, What: fmt.Sprintf("codex: all %d of %s's hooks are trusted", len(hooks), s.Binary)})
	}
	return out
}

// codexTrusted is config.toml (config, nil: none) with every hook of this
// binary in hooksPath's hooks trusted as it is, as Codex's /hooks writes
// it: a [hooks.state."KEY"] table with its trusted_hash. A hook the user
// turned off stays off. manual counts the hooks whose state is in a form
// this does not edit (inline tables under [hooks.state]): the person
// trusts those in Codex.
func (s Spec) codexTrusted(hooksPath string, hooks, config []byte) (out []byte, manual int, err error) {
	hs, err := s.codexHooks(hooksPath, hooks)
	if err != nil || len(hs) == 0 {
		return config, 0, err
	}
	want := map[string]string{}
	for _, h := range hs {
		want[h.Key] = h.Hash
	}
	lines := strings.SplitAfter(string(config), "\n")
	header := map[string]int{} // a key's table, by line
	hashAt := map[string]int{} // its trusted_hash line
	disabled, inline := map[string]bool{}, map[string]bool{}
	key, inState := "", false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "["):
			key, inState = "", false
			if m := stateHeader().FindStringSubmatch(t); m != nil {
				key = tomlString(m[1])
				header[key] = i
			} else if stateTable().MatchString(t) {
				inState = true
			}
		case key != "":
			if hashField().MatchString(t) {
				hashAt[key] = i
			}
			if enabledOff().MatchString(t) {
				disabled[key] = true
			}
		case inState:
			if m := inlineState().FindStringSubmatch(t); m != nil {
				inline[tomlString(m[1])] = true
			}
		}
	}
	after := map[int]string{}
	var tail []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		line := "trusted_hash = " + tomlQuote(want[k]) + "\n"
		at, hashed := hashAt[k]
		switch i, has := header[k]; {
		case disabled[k]:
		case inline[k]:
			manual++
		case hashed:
			l := lines[at]
			lines[at] = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + line
		case has:
			after[i] += line
		default:
			tail = append(tail, "[hooks.state."+tomlQuote(k)+"]\n"+line)
		}
	}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if extra, ok := after[i]; ok {
			if !strings.HasSuffix(l, "\n") {
				b.WriteByte('\n')
			}
			b.WriteString(extra)
		}
	}
	if len(tail) > 0 {
		switch t := b.String(); {
		case t == "":
		case strings.HasSuffix(t, "\n"):
			b.WriteByte('\n')
		default:
			b.WriteString("\n\n")
		}
		b.WriteString(strings.Join(tail, "\n"))
	}
	if config == nil && b.Len() == 0 {
		return nil, manual, nil
	}
	return []byte(b.String()), manual, nil
}
