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
		command += " " + s.StatusLine.Previous + " " + shellQuote(prev)
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

// shellQuote quotes s as one sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
