package consent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/agent"
)

// recorded is testdata/consent-py-12079e67-recorded.json: what the plugin's
// own hooks/consent.py (noctalia-dev/community-plugins@12079e67) wrote when
// it was run here under python3 on these inputs (its _key, its learn rows
// with the clock at 1796515107.9, the .req its _decide wrote, the .res and
// allowlist rows `consent.py reply` wrote). The repository holds only the
// bytes, never the plugin's code; docs/reference/pulse-and-claude-code.md
// §1.5 says how they were recorded.
type recorded struct {
	Keys []struct{ Tool, Input, Key string }
	// Learn rows: "" where consent.py recorded none (a key of several lines).
	Learn    []struct{ Tool, Input, Row string }
	Requests []struct {
		Payload, Req, Mode, Dirmode string
		Argv                        []string
	}
	Replies []struct {
		Choice, Req string
		Res, Allow  *string
	}
}

func load(t *testing.T) recorded {
	t.Helper()
	b, err := os.ReadFile("testdata/consent-py-12079e67-recorded.json")
	if err != nil {
		t.Fatal(err)
	}
	var r recorded
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Keys) == 0 || len(r.Learn) == 0 || len(r.Requests) == 0 || len(r.Replies) == 0 {
		t.Fatal("the recording is missing a part")
	}
	return r
}

// The allowlist's keys are consent.py's, byte for byte: unicode escaped,
// numbers as Python prints them back, keys sorted, a key given twice.
func TestKeysAsRecorded(t *testing.T) {
	for _, c := range load(t).Keys {
		if got := Key(c.Tool, gjson.Parse(c.Input)); got != c.Key {
			t.Errorf("Key(%s, %s)\n got %q\nwant %q", c.Tool, c.Input, got, c.Key)
		}
	}
}

// learn.jsonl rows as consent.py appends them; none for a key of several
// lines.
func TestLearnRowsAsRecorded(t *testing.T) {
	at := time.Unix(1796515107, 900e6)
	for _, c := range load(t).Learn {
		in := gjson.Parse(c.Input)
		key := Key(c.Tool, in)
		dir := filepath.Join(t.TempDir(), "claude-companion")
		if err := learn(dir, LearnRow(c.Tool, key, in.Get("description"), at), key); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "learn.jsonl"))
		if string(got) != c.Row {
			t.Errorf("learn row for %s %s\n got %q\nwant %q", c.Tool, c.Input, got, c.Row)
		}
	}
}

// The .req for a Claude Code PreToolUse is the one consent.py writes for
// it, but for the nonce (random in both); the id is the tool call's, kept
// to [A-Za-z0-9_-], else 16 random hex digits.
func TestRequestsAsRecorded(t *testing.T) {
	nonce := regexp.MustCompile(`"nonce": "([0-9a-f]{32})"`)
	randomID := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, c := range load(t).Requests {
		ev := agent.Parse(agent.Input{Agent: "claude", Payload: []byte(c.Payload)})
		r, _, ok := NewRequest(ev, "d63ac083")
		if !ok {
			t.Fatalf("%s: no request", c.Payload)
		}
		if !nonce.MatchString(r.Nonce) && !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r.Nonce) {
			t.Errorf("nonce %q is not 32 hex digits", r.Nonce)
		}
		want := nonce.FindStringSubmatch(c.Req)
		if want == nil {
			t.Fatalf("recorded request without a nonce: %s", c.Req)
		}
		r.Nonce = want[1]
		wantID := gjson.Get(c.Req, "id").Str
		if !gjson.Get(c.Payload, "tool_use_id").Exists() {
			if !randomID.MatchString(r.ID) || !randomID.MatchString(wantID) {
				t.Errorf("ids without a tool call id: %q (consent.py %q), want 16 hex digits", r.ID, wantID)
			}
			r.ID = wantID
		}
		if got := string(r.JSON()); got != c.Req {
			t.Errorf("request for %s\n got %s\nwant %s", c.Payload, got, c.Req)
		}
		if want := []string{"plugin", "lowcache/claude-companion:pulse-svc", "all", RequestEvent, r.ID + ",d63ac083"}; strings.Join(c.Argv[2:], " ") != strings.Join(want, " ") {
			t.Errorf("consent.py's poke %q is not %q", c.Argv, want)
		}
	}
}

// What `consent.py reply` writes is read as it means: allow and always an
// allow, deny a denial; the same answer under another nonce is none, and
// an unknown choice writes nothing. "always" adds the key to the
// allowlist, which then allows the call.
func TestRepliesAsRecorded(t *testing.T) {
	for _, c := range load(t).Replies {
		nonce := gjson.Get(c.Req, "nonce").Str
		if c.Res == nil {
			if c.Choice == "allow" || c.Choice == "deny" || c.Choice == "always" {
				t.Errorf("%s: consent.py wrote no answer", c.Choice)
			}
			continue
		}
		path := filepath.Join(t.TempDir(), "r.res")
		if err := os.WriteFile(path, []byte(*c.Res), 0o600); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"allow": "allow", "always": "allow", "deny": "deny"}[c.Choice]
		if a := readAnswer(path, nonce); !a.read || a.decision != want {
			t.Errorf("%s: read %+v, want %s", c.Choice, a, want)
		}
		if a := readAnswer(path, strings.Repeat("0", 32)); !a.read || a.decision != "" {
			t.Errorf("%s under another nonce: read %+v, want no decision", c.Choice, a)
		}
		if c.Allow == nil {
			continue
		}
		state := t.TempDir()
		dir := filepath.Join(state, "noctalia", "claude-companion")
		os.MkdirAll(dir, 0o700)
		if err := os.WriteFile(filepath.Join(dir, "allow.jsonl"), []byte(*c.Allow), 0o600); err != nil {
			t.Fatal(err)
		}
		getenv := func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] }
		if key := gjson.Get(c.Req, "key").Str; !Allowed(getenv, key) || Allowed(getenv, key+" ") {
			t.Errorf("allowlist %q: %q allowed %v, %q allowed %v", *c.Allow, key, Allowed(getenv, key), key+" ", Allowed(getenv, key+" "))
		}
	}
}
