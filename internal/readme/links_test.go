package readme

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxREADME is the README's length in lines: what a newcomer reads on one
// screen or three. A long section goes to a page of docs/.
const maxREADME = 300

// maxTop is the line by which the README shows the two commands a newcomer
// runs first: after the paragraph that says what hookwire is.
const maxTop = 15

// TestDocLinks: every relative link of every Markdown file in the repository
// names a file that exists, and its #anchor a heading of that file; every
// page under docs/ can be reached from README.md by links.
func TestDocLinks(t *testing.T) {
	for _, p := range linkProblems(root, markdownFiles(t)) {
		t.Error(p)
	}
}

// TestREADMEShort: the README stays what a newcomer reads first, and opens
// with the two commands a newcomer runs, the second being the test command
// .ci/run runs.
// testCommand is the whole suite, as README.md gives it and .ci/run runs it.
const testCommand = "go test -race -p 1 -timeout 30m ./..."

func TestREADMEShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n >= maxREADME {
		t.Errorf("README.md has %d lines, want under %d: move a section to a page of docs/ (docs/README.md is the index)", n, maxREADME)
	}
	// The first code block, right below the opening paragraph.
	before, rest, _ := strings.Cut(string(b), "\n```")
	first, _, _ := strings.Cut(rest, "```\n")
	if n := strings.Count(before, "\n") + 2; n > maxTop {
		t.Errorf("README.md's first code block starts on line %d, want the two commands within the first %d lines", n, maxTop)
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	if len(lines) != 3 || lines[0] != "sh" || !strings.HasPrefix(lines[1], "./scripts/demo ") || !strings.HasPrefix(lines[2], testCommand+" ") {
		t.Errorf("README.md's first code block is %q, want the two commands: ./scripts/demo and %s", first, testCommand)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), testCommand) {
		t.Errorf(".ci/run does not run %s, the test command README.md gives", testCommand)
	}
}

// The check itself: a missing file, a missing anchor, a link out of the
// repository and an unreachable page are each found; what resolves
// (a heading's slug, a directory's README, a link in code, an external URL)
// is not.
func TestLinkProblems(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"README.md": "# hookwire\n\n[Docs](docs/README.md), [go](https://go.dev), [ref](docs/reference/).\n" +
			"[gone](docs/gone.md) and [bad anchor](docs/a.md#nowhere) and [out](../x.md).\n" +
			"`[code](nowhere.md)`\n\n```\n[fenced](nowhere.md)\n```\n\n" +
			"`…` a link whose text [runs over\ntwo lines](docs/a.md#gone), after a code span of runes.\n",
		"docs/README.md": "# Index\n\n[A](a.md#wrap-any-command-as-an-agents-run), [A again](a.md#one-1), [top](../README.md#hookwire).\n",
		"docs/a.md": "# A\n\n## `wrap`: any command as an agent's run\n\n## One\n\n## One\n\n[self](#a)\n\n" +
			"```\n# not a heading\n```\n[not one](#not-a-heading)\n",
		"docs/reference/README.md": "# Reference\n",
		"docs/orphan.md":           "# Orphan\n",
	}
	var names []string
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	got := linkProblems(dir, names)
	want := []string{
		"README.md:4: [gone](docs/gone.md): docs/gone.md does not exist",
		"README.md:4: [bad anchor](docs/a.md#nowhere): docs/a.md has no heading #nowhere",
		"README.md:4: [out](../x.md): outside the repository",
		"README.md:11: [runs over two lines](docs/a.md#gone): docs/a.md has no heading #gone",
		"docs/a.md:14: [not one](#not-a-heading): docs/a.md has no heading #not-a-heading",
		"docs/orphan.md: no link from README.md leads here (add it to docs/README.md)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"hookwire: several surfaces from one process":                             "hookwire-several-surfaces-from-one-process",
		"Settings: install, uninstall, snippet":                                   "settings-install-uninstall-snippet",
		"`wrap`: any command as an agent's run":                                   "wrap-any-command-as-an-agents-run",
		"Guarantees, and the tests that hold them":                                "guarantees-and-the-tests-that-hold-them",
		"Real agents: compatibility and one-time setup":                           "real-agents-compatibility-and-one-time-setup",
		"The runtime contract (`internal/hook`) — every binary, every invocation": "the-runtime-contract-internalhook--every-binary-every-invocation",
		"noctalia Pulse (`pulse-emit`, `pulse-claude`)":                           "noctalia-pulse-pulse-emit-pulse-claude",
		"Agent events → kinds":                                                    "agent-events--kinds",
		"snake_case Ünïcode":                                                      "snake_case-ünïcode",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// markdownFiles lists the repository's Markdown files, tracked or new (slash paths
// from its root); outside a git work tree (a module download), every .md
// file under it but hidden directories'.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md").Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" && (len(files) == 0 || files[len(files)-1] != f) {
				files = append(files, f) // git lists a conflicted path once per stage
			}
		}
		if len(files) > 0 {
			return files
		}
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Markdown file found")
	}
	return files
}

// A Markdown link: [text](target), or [text](target "title"). The text may
// hold code spans and brackets of its own one level deep.
var linkRE = regexp.MustCompile(`\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan is an inline code span; a link inside one is text, not a link.
var codeSpan = regexp.MustCompile("`+[^`]*?`+")

// link is a Markdown link: the line it starts on, the link as written, and
// its target.
type link struct {
	n            int
	text, target string
}

// linksOf finds the links of a Markdown file, outside fenced code blocks
// and code spans. A link's text may run over lines, as a paragraph wraps.
func linksOf(b []byte) []link {
	lines := strings.Split(string(b), "\n")
	kept := make([]string, len(lines))
	for _, l := range prose(b) {
		kept[l.n-1] = l.text
	}
	var out []link
	n := 1 // the line where each paragraph starts
	for _, para := range strings.Split(strings.Join(kept, "\n"), "\n\n") {
		// Code spans become spaces, byte for byte, so that offsets in
		// plain are offsets in para.
		plain := codeSpan.ReplaceAllStringFunc(para, func(code string) string {
			blank := []byte(code)
			for i, c := range blank {
				if c != '\n' {
					blank[i] = ' '
				}
			}
			return string(blank)
		})
		for _, m := range linkRE.FindAllStringSubmatchIndex(plain, -1) {
			text := strings.Join(strings.Fields(para[m[0]:m[1]]), " ") // as written, on one line
			out = append(out, link{n + strings.Count(para[:m[0]], "\n"), text, para[m[2]:m[3]]})
		}
		n += strings.Count(para, "\n") + 2
	}
	return out
}

// mdLine is one line of a Markdown file outside fenced code blocks.
type mdLine struct {
	n    int
	text string
}

// prose returns the lines of a Markdown file that are not in a fenced code
// block (``` or ~~~).
func prose(b []byte) []mdLine {
	var out []mdLine
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		out = append(out, mdLine{n, line})
	}
	return out
}

// anchors are the heading anchors GitHub gives a Markdown file: each
// heading's slug, a repeated one suffixed -1, -2, ….
func anchors(b []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(b) {
		hashes := len(l.text) - len(strings.TrimLeft(l.text, "#"))
		if hashes < 1 || hashes > 6 || !strings.HasPrefix(l.text[hashes:], " ") {
			continue
		}
		s := slug(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(l.text[hashes:]), "#")))
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading: lowercase, every character but a
// letter, a digit, a space, '-' or '_' dropped, each space a '-'. Inline
// markup (a code span's backticks) is punctuation, dropped the same way.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// linkProblems checks the relative links of files (slash paths from root):
// each target exists inside root, each #anchor of a Markdown target is one
// of its headings (a directory's is its README.md's), and every file under
// docs/ is reached from README.md.
func linkProblems(root string, files []string) []string {
	var problems []string
	links := map[string][]string{} // file → the Markdown files it links to
	texts := map[string][]byte{}
	read := func(f string) ([]byte, error) {
		if b, ok := texts[f]; ok {
			return b, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err == nil {
			texts[f] = b
		}
		return b, err
	}
	for _, f := range files {
		b, err := read(f)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			problems = append(problems, f+": "+err.Error())
			continue
		}
		for _, l := range linksOf(b) {
			dest, problem := resolve(root, f, l.target, read)
			if problem != "" {
				problems = append(problems, f+":"+strconv.Itoa(l.n)+": "+l.text+": "+problem)
			}
			if dest != "" {
				links[f] = append(links[f], dest)
			}
		}
	}
	reached := map[string]bool{"README.md": true}
	for queue := []string{"README.md"}; len(queue) > 0; queue = queue[1:] {
		for _, next := range links[queue[0]] {
			if !reached[next] {
				reached[next] = true
				queue = append(queue, next)
			}
		}
	}
	for _, f := range files {
		if strings.HasPrefix(f, "docs/") && !reached[f] {
			problems = append(problems, f+": no link from README.md leads here (add it to docs/README.md)")
		}
	}
	return problems
}

// resolve follows a link of the Markdown file f: the Markdown file it leads
// to ("" for an external URL or another kind of file), and what is wrong with
// it ("" when nothing is).
func resolve(root, f, target string, read func(string) ([]byte, error)) (dest, problem string) {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return "", ""
	}
	p, anchor, _ := strings.Cut(target, "#")
	dest = f
	if p != "" {
		dest = path.Join(path.Dir(f), p)
		if dest == ".." || strings.HasPrefix(dest, "../") || strings.HasPrefix(p, "/") {
			return "", "outside the repository"
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest)))
		if err != nil {
			return "", dest + " does not exist"
		}
		if info.IsDir() {
			dest = path.Join(dest, "README.md") // what GitHub shows for a directory
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
				if anchor != "" {
					return "", path.Dir(dest) + " has no README.md for #" + anchor
				}
				return "", ""
			}
		}
	}
	if !strings.HasSuffix(dest, ".md") {
		return "", "" // a source file: its anchors (#L12) are GitHub's, not headings
	}
	if anchor == "" {
		return dest, ""
	}
	b, err := read(dest)
	if err != nil {
		return dest, err.Error()
	}
	if !anchors(b)[anchor] {
		return dest, dest + " has no heading #" + anchor
	}
	return dest, ""
}
