package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// StatusLine describes a binary that can also be Claude Code's status line
// command, chaining the one it replaces.
type StatusLine struct {
	Flag     string // makes the binary a status line command: --statusline
	Previous string // names the command it chains: --previous
}

// InstallStatusLine makes bin Claude Code's status line (settings key
// statusLine). A status line that was there is not lost: its command is
// passed to bin as the one to chain (the binary runs it with the same input
// and prints what it prints), and its other keys (padding) stay. A second
// run keeps chaining the same command.
func (s Spec) InstallStatusLine(data []byte, bin string) ([]byte, error) {
	d, err := parseDoc(data, true)
	if err != nil {
		return nil, err
	}
	root := d.root.Value.(*hujson.Object)
	command := Agents["claude"].quote(bin) + " " + s.StatusLine.Flag // Claude Code's alone
	m := member(root, "statusLine")
	if m == nil {
		d.setMember(root, "statusLine", map[string]any{"type": "command", "command": command}, 1)
		return d.bytes(), nil
	}
	obj, ok := m.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf(`"statusLine" is not an object`)
	}
	prev, _ := value(m).(map[string]any)["command"].(string)
	if p, ours := s.chained(prev); ours {
		prev = p
	}
	if strings.TrimSpace(prev) != "" {
		command += " " + s.StatusLine.Previous + " " + quotePrevious(prev)
	}
	d.setMember(obj, "type", "command", 2)
	d.setMember(obj, "command", command, 2)
	return d.bytes(), nil
}

// UninstallStatusLine gives the status line back: the command bin chained,
// or no status line if there was none. A status line that is not ours stays.
func (s Spec) UninstallStatusLine(data []byte) ([]byte, error) {
	d, err := parseDoc(data, true)
	if err != nil {
		return nil, err
	}
	root := d.root.Value.(*hujson.Object)
	m := member(root, "statusLine")
	if m == nil {
		return d.bytes(), nil
	}
	obj, ok := m.Value.(*hujson.Object)
	if !ok {
		return d.bytes(), nil
	}
	cur, _ := value(m).(map[string]any)["command"].(string)
	prev, ours := s.chained(cur)
	switch {
	case !ours:
	case prev == "":
		removeMember(root, "statusLine")
	default:
		d.setMember(obj, "command", prev, 2)
	}
	return d.bytes(), nil
}

// chained reads a status line command: ours if it runs this binary with the
// status line flag, and then the command it chains ("" for none).
func (s Spec) chained(command string) (prev string, ours bool) {
	w := words(command)
	if len(w) < 2 || strings.TrimSuffix(filepath.Base(strings.ReplaceAll(w[0], `\`, "/")), ".exe") != s.Binary ||
		!slices.Contains(w[1:], s.StatusLine.Flag) {
		return "", false
	}
	if i := slices.Index(w, s.StatusLine.Previous); i > 0 && i+1 < len(w) {
		return w[i+1], true
	}
	return "", true
}

// quotePrevious quotes the chained command as one word of the status line
// command. On Windows Claude Code runs that line in Git Bash, or in cmd.exe
// where it finds none: double quotes make one word for both (and for the
// .exe's own reading of its command line) while nothing inside is special to
// either; any other command keeps sh's single quotes, which only Git Bash
// reads.
func quotePrevious(prev string) string {
	if onWindows && sameInDoubleQuotes(prev) {
		return `"` + prev + `"`
	}
	return shellQuote(prev)
}

// sameInDoubleQuotes: s in double quotes is s to bash, to cmd.exe, to a
// Windows program's command line and to words: no quote, no $ ` (bash) or
// % (cmd.exe), no control character, and no backslash before a character
// one of them escapes with it, or at the end.
func sameInDoubleQuotes(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f || strings.IndexByte("\"$`%", c) >= 0:
			return false
		case c == '\\' && (i+1 == len(s) || strings.IndexByte("\\\"'`$ ", s[i+1]) >= 0):
			return false
		}
	}
	return true
}

// shellQuote quotes s as one sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
