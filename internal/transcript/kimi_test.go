package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The answer is the text of the turn's last model call, read back to its
// step.begin; a wire whose last step called a tool (the turn cut short, or
// not over) has none.
func TestKimiAnswer(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "transcripts", "kimi-2.1.0", "wire.jsonl")
	a, found, err := KimiAnswer(src, TailLimits{})
	if err != nil || !found || a != "All three steps are done: I ran a command, wrote notes.txt and read it back." {
		t.Errorf("KimiAnswer = %q, %v, %v", a, found, err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Up to the third step's tool call: the last step called a tool.
	i := bytes.LastIndex(b, []byte(`"type":"tool.call"`))
	cut := b[:i+bytes.IndexByte(b[i:], '\n')+1]
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	os.WriteFile(path, cut, 0o600)
	if a, found, err := KimiAnswer(path, TailLimits{}); found || err != nil {
		t.Errorf("a step that called a tool: %q, %v, %v", a, found, err)
	}
	if _, found, err := KimiAnswer(filepath.Join(t.TempDir(), "none"), TailLimits{}); found || err == nil {
		t.Errorf("no file: found %v, err %v", found, err)
	}
}
