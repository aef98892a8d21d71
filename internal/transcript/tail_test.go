package transcript_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/transcript"
)

func writeFile(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func assistant(id string, blocks ...string) string {
	return fmt.Sprintf(`{"type":"assistant","isSidechain":false,"uuid":"u-%s","message":{"id":%q,"role":"assistant","model":"claude-opus-4-6","content":[%s],"usage":{"output_tokens":3}}}`,
		id, id, strings.Join(blocks, ","))
}

func textBlock(s string) string { return fmt.Sprintf(`{"type":"text","text":%q}`, s) }
func toolUse(name string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":"t1","name":%q,"input":{}}`, name)
}
func thinking(s string) string { return fmt.Sprintf(`{"type":"thinking","thinking":%q}`, s) }
func userLine(s string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q}}`, s)
}
func toolResult(s string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":%q}]}}`, s)
}

const systemLine = `{"type":"system","subtype":"stop_hook_summary","userType":"external","content":"hooks ran"}`

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestLastAssistantText(t *testing.T) {
	cases := []struct {
		name    string
		content string
		want    string
		found   bool
	}{
		{"one message", lines(userLine("go"), assistant("m1", textBlock("Done."))), "Done.", true},
		{"the last of several", lines(
			userLine("a"), assistant("m1", textBlock("First.")),
			userLine("b"), assistant("m2", textBlock("Second.")),
		), "Second.", true},
		{"one line per block, one message", lines(
			userLine("go"),
			assistant("m1", thinking("hmm")),
			assistant("m1", textBlock("Tests pass.")),
			assistant("m1", textBlock("Shall I push?")),
		), "Tests pass.\n\nShall I push?", true},
		{"several blocks in one line", lines(assistant("m1", textBlock("a"), toolUse("Bash"), textBlock("b"))), "a\n\nb", true},
		{"lines after the message that are not the conversation", lines(
			assistant("m1", textBlock("Answer.")),
			systemLine,
			`{"type":"progress","data":{"message":{"type":"assistant","message":{"id":"sub","role":"assistant","content":[{"type":"text","text":"subagent"}]}}}}`,
			`{"type":"assistant","isSidechain":true,"message":{"id":"side","role":"assistant","content":[{"type":"text","text":"sidechain"}]}}`,
			`{"type":"file-history-snapshot","snapshot":{}}`,
		), "Answer.", true},
		{"a turn that ended on a tool call has no text", lines(
			assistant("m1", textBlock("Earlier.")), toolResult("ok"),
			assistant("m2", toolUse("Bash")),
		), "", true},
		{"a user entry ends the message", lines(
			assistant("m1", textBlock("Let me look.")),
			toolResult("file contents"),
			assistant("m1", textBlock("Same id after a user entry.")),
		), "Same id after a user entry.", true},
		{"a message without an id is one line", lines(
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"one"}]}}`,
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"two"}]}}`,
		), "two", true},
		{"content as a string", lines(`{"type":"assistant","message":{"role":"assistant","content":"plain"}}`), "plain", true},
		{"content as an object", lines(`{"type":"assistant","message":{"role":"assistant","content":{"text":"obj"}}}`), "obj", true},
		{"role-only lines", lines(`{"role":"user","message":{"content":"hi"}}`, `{"role":"assistant","message":{"content":[{"type":"text","text":"Hello."}]}}`), "Hello.", true},
		{"message.role only", lines(`{"message":{"role":"assistant","content":[{"type":"text","text":"Hi."}]}}`), "Hi.", true},
		{"CRLF", strings.ReplaceAll(lines(userLine("go"), assistant("m1", textBlock("Done."))), "\n", "\r\n"), "Done.", true},
		{"no newline at the end", userLine("go") + "\n" + assistant("m1", textBlock("Done.")), "Done.", true},
		{"only one line, no newline", assistant("m1", textBlock("Alone.")), "Alone.", true},
		{"a torn last line is passed over", lines(assistant("m1", textBlock("Whole."))) + assistant("m2", textBlock("Being written"))[:60], "Whole.", true},
		{"garbage and blank lines", lines("not json", assistant("m1", textBlock("Ok.")), "", "{", "[1,2]", "\"assistant\""), "Ok.", true},
		{"no assistant entry", lines(userLine("go"), systemLine), "", false},
		{"empty file", "", "", false},
		{"only newlines", "\n\n\n", "", false},
		{"the word in a user entry", lines(userLine(`ask the "assistant"`)), "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.content)
			for _, window := range []int{0, 1, 7, 64, 1 << 20} {
				got, found, err := transcript.LastAssistantText(path, transcript.TailLimits{Window: window})
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want || found != tc.found {
					t.Errorf("window %d: %q, %v; want %q, %v", window, got, found, tc.want, tc.found)
				}
			}
		})
	}
}

// A line far larger than the read window, before and after the entry.
func TestLastAssistantTextLongLines(t *testing.T) {
	big := strings.Repeat("x", 300_000)
	path := writeFile(t, lines(toolResult(big), assistant("m1", textBlock("Long: "+big)), systemLine))
	got, found, err := transcript.LastAssistantText(path, transcript.TailLimits{Window: 4096})
	if err != nil || !found || got != "Long: "+big {
		t.Errorf("%d bytes, %v, %v", len(got), found, err)
	}

	// A huge user line ends the entry found after it: the tool result is
	// not read into the answer, and a larger window changes nothing.
	path = writeFile(t, lines(assistant("m1", textBlock("Before.")), toolResult(big), assistant("m2", textBlock("After."))))
	for _, w := range []int{100, 1 << 20} {
		if got, _, _ := transcript.LastAssistantText(path, transcript.TailLimits{Window: w}); got != "After." {
			t.Errorf("window %d: %q", w, got)
		}
	}
}

// A line past MaxLine cannot be told apart: before the entry it ends the
// search (the newest entry is unknown, an older one would mislead), after
// it, it ends the entry.
func TestLastAssistantTextMaxLine(t *testing.T) {
	big := strings.Repeat("y", 10_000)
	lim := transcript.TailLimits{Window: 512, MaxLine: 5_000}

	path := writeFile(t, lines(assistant("m1", textBlock("Older.")), assistant("m2", textBlock(big))))
	if got, found, err := transcript.LastAssistantText(path, lim); err != nil || found || got != "" {
		t.Errorf("newest too long: %q, %v, %v", got, found, err)
	}
	path = writeFile(t, lines(assistant("m1", textBlock(big)), assistant("m1", textBlock("Tail."))))
	if got, found, _ := transcript.LastAssistantText(path, lim); !found || got != "Tail." {
		t.Errorf("older line too long: %q, %v", got, found)
	}
	// The same line as the very first of the file.
	path = writeFile(t, assistant("m1", textBlock(big)))
	if _, found, _ := transcript.LastAssistantText(path, lim); found {
		t.Errorf("first line too long: found")
	}
}

// MaxRead bounds the work on a transcript whose end holds no assistant entry.
func TestLastAssistantTextMaxRead(t *testing.T) {
	filler := strings.Repeat(toolResult(strings.Repeat("z", 1000))+"\n", 200)
	path := writeFile(t, lines(assistant("m1", textBlock("Far back.")))+filler)
	if _, found, _ := transcript.LastAssistantText(path, transcript.TailLimits{Window: 4096, MaxRead: 50_000}); found {
		t.Error("found beyond MaxRead")
	}
	if got, found, _ := transcript.LastAssistantText(path, transcript.TailLimits{Window: 4096}); !found || got != "Far back." {
		t.Errorf("%q, %v", got, found)
	}
}

func TestLastAssistantTextMissingFile(t *testing.T) {
	if _, _, err := transcript.LastAssistantText(filepath.Join(t.TempDir(), "none.jsonl"), transcript.TailLimits{}); !os.IsNotExist(err) {
		t.Errorf("err = %v", err)
	}
}

// Random transcripts, random windows: the backwards reader agrees with a
// plain forward reading of the whole file.
func TestLastAssistantTextRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	for i := range 400 {
		content := randomTranscript(rng)
		path := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		want, wantFound := referenceLastText(content)
		window := 1 + rng.IntN(300)
		got, found, err := transcript.LastAssistantText(path, transcript.TailLimits{Window: window})
		if err != nil {
			t.Fatal(err)
		}
		if got != want || found != wantFound {
			t.Fatalf("case %d, window %d: %q, %v; want %q, %v\n%s", i, window, got, found, want, wantFound, content)
		}
	}
}

func randomTranscript(rng *rand.Rand) string {
	ids := []string{"m1", "m2", "m3"}
	var b strings.Builder
	n := rng.IntN(12)
	for range n {
		id := ids[rng.IntN(len(ids))]
		word := strings.Repeat(string(rune('a'+rng.IntN(26))), 1+rng.IntN(400))
		var line string
		switch rng.IntN(9) {
		case 0, 1, 2:
			blocks := []string{}
			for range rng.IntN(3) {
				switch rng.IntN(3) {
				case 0:
					blocks = append(blocks, textBlock(word))
				case 1:
					blocks = append(blocks, toolUse("Bash"))
				default:
					blocks = append(blocks, thinking(word))
				}
			}
			line = assistant(id, blocks...)
		case 3:
			line = toolResult(word)
		case 4:
			line = userLine(word)
		case 5:
			line = systemLine
		case 6:
			line = `{"type":"assistant","isSidechain":true,"message":{"id":"s","role":"assistant","content":[{"type":"text","text":"side"}]}}`
		case 7:
			line = `{"type":"progress","data":{"message":{"type":"assistant","message":{"id":"p","content":[{"type":"text","text":"nested"}]}}}}`
		default:
			line = "" // a blank line
		}
		b.WriteString(line)
		if rng.IntN(10) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	switch rng.IntN(4) {
	case 0: // a torn last line
		l := assistant("m9", textBlock("torn"))
		b.WriteString(l[:rng.IntN(len(l)-1)])
	case 1: // a whole last line without its newline
		b.WriteString(assistant("m8", textBlock("unterminated")))
	}
	return b.String()
}

// referenceLastText reads the whole file forwards, with encoding/json.
func referenceLastText(content string) (string, bool) {
	type entry struct {
		role, id string
		texts    []string
	}
	var entries []entry
	for _, l := range strings.Split(content, "\n") {
		l = strings.TrimSuffix(l, "\r")
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) != nil {
			entries = append(entries, entry{})
			continue
		}
		if side, _ := v["isSidechain"].(bool); side {
			entries = append(entries, entry{})
			continue
		}
		msg, _ := v["message"].(map[string]any)
		typ, _ := v["type"].(string)
		role := ""
		switch {
		case typ == "assistant" || typ == "user":
			role = typ
		case typ == "" || typ == "message":
			role, _ = msg["role"].(string)
			if role == "" {
				role, _ = v["role"].(string)
			}
		}
		e := entry{role: role}
		e.id, _ = msg["id"].(string)
		var content any = v["content"]
		if msg != nil {
			content = msg["content"]
		}
		switch c := content.(type) {
		case string:
			if c != "" {
				e.texts = []string{c}
			}
		case []any:
			for _, blk := range c {
				if m, ok := blk.(map[string]any); ok && m["type"] == "text" {
					if s, _ := m["text"].(string); s != "" {
						e.texts = append(e.texts, s)
					}
				}
			}
		case map[string]any:
			if s, _ := c["text"].(string); s != "" {
				e.texts = []string{s}
			}
		}
		entries = append(entries, e)
	}
	last := -1
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].role == "assistant" {
			last = i
			break
		}
	}
	if last < 0 {
		return "", false
	}
	texts := entries[last].texts
	id := entries[last].id
	for i := last - 1; i >= 0 && id != ""; i-- {
		e := entries[i]
		if e.role == "user" || e.role == "assistant" && e.id != id {
			break
		}
		if e.role == "assistant" {
			texts = append(append([]string{}, e.texts...), texts...)
		}
	}
	return strings.Join(texts, "\n\n"), true
}

func BenchmarkLastAssistantText(b *testing.B) {
	// A 64 MiB transcript whose end is a turn's final message.
	var sb strings.Builder
	for sb.Len() < 64<<20 {
		sb.WriteString(lines(userLine("go"), assistant("m1", toolUse("Bash")), toolResult(strings.Repeat("r", 20_000)), assistant("m2", textBlock("Done."))))
	}
	path := writeFile(b, sb.String())
	for b.Loop() {
		if got, _, err := transcript.LastAssistantText(path, transcript.TailLimits{}); err != nil || got != "Done." {
			b.Fatalf("%q %v", got, err)
		}
	}
}
