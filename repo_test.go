package hookwire_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTracked is the size above which a tracked file must be on the
// trackedExceptions list: the repository holds source, docs and small
// fixtures; a build output or a stray download is what grows past it.
const maxTracked = 1 << 20

// trackedExceptions is the explicit list of tracked files allowed past
// maxTracked, each with its own ceiling and the reason. A pattern ending in
// "/" covers that directory's files. No entry allows a binary: recordings are
// text (JSON, JSONL), and a binary fixture is built by its test instead.
var trackedExceptions = []struct {
	pattern string
	max     int64
	why     string
}{
	{"testdata/agents/", 8 << 20, "hook payloads recorded from the real agents (JSON)"},
	{"testdata/transcripts/", 8 << 20, "session transcripts recorded from the real agents (JSONL): the scanner is measured on real sizes"},
}

// TestTrackedFiles keeps the repository what a clone should be: no binary
// and nothing large that is not on the list above. .ci/run runs it with the
// rest of the suite.
func TestTrackedFiles(t *testing.T) {
	t.Parallel()
	for _, p := range trackedProblems(".", gitFiles(t)) {
		t.Error(p)
	}
}

// The check itself finds a binary (as the nb-hook Mach-O once committed at
// the root) and a large file, and lets a listed recording through.
func TestTrackedProblems(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name string, b []byte) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte(`{"type":"assistant"}`+"\n"), maxTracked/20+1)
	write("README.md", []byte("# hookwire\n"))
	write("nb-hook", []byte("\xcf\xfa\xed\xfe\x0c\x00\x00\x01")) // Mach-O header
	write("go.sum", big)
	write("testdata/transcripts/long.jsonl", big)
	write("testdata/transcripts/blob.jsonl", []byte("{}\n\x00"))
	got := trackedProblems(root, []string{"README.md", "nb-hook", "go.sum", "testdata/transcripts/long.jsonl", "testdata/transcripts/blob.jsonl"})
	want := []string{
		"nb-hook: a binary file",
		fmt.Sprintf("go.sum: %d bytes, over %d and not on trackedExceptions", len(big), maxTracked),
		"testdata/transcripts/blob.jsonl: a binary file",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// gitFiles lists the tracked files (slash paths), each once: git lists a
// file with a merge conflict once per stage. Outside a git work tree (a
// module download) the test is skipped.
func gitFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git work tree (a module download): %v", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && (len(files) == 0 || files[len(files)-1] != f) {
			files = append(files, f) // git lists a path's stages together
		}
	}
	if len(files) == 0 {
		t.Fatal("git ls-files listed nothing")
	}
	return files
}

// trackedProblems says, for each file (slash paths relative to root), why it
// does not belong in the repository.
func trackedProblems(root string, files []string) []string {
	var problems []string
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		// git's own test for a binary file: a NUL byte.
		if bytes.IndexByte(b, 0) >= 0 {
			problems = append(problems, f+": a binary file")
			continue
		}
		limit, listed := int64(maxTracked), false
		for _, e := range trackedExceptions {
			if f == e.pattern || strings.HasSuffix(e.pattern, "/") && strings.HasPrefix(f, e.pattern) {
				limit, listed = e.max, true
				break
			}
		}
		if n := int64(len(b)); n > limit {
			if listed {
				problems = append(problems, fmt.Sprintf("%s: %d bytes, over its trackedExceptions ceiling %d", f, n, limit))
			} else {
				problems = append(problems, fmt.Sprintf("%s: %d bytes, over %d and not on trackedExceptions", f, n, maxTracked))
			}
		}
	}
	return problems
}
