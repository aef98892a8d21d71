package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/tailscale/hujson"

	"github.com/hookwire/hookwire/internal/agent"
)

// Handlers as each shape writes them; the field order is the one people
// write by hand.
type (
	handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout *int64 `json:"timeout,omitempty"`
	}
	group struct {
		Matcher  string          `json:"matcher,omitempty"`
		Hooks    []handler       `json:"hooks"`
		Metadata map[string]bool `json:"metadata,omitempty"`
	}
	cursorHandler struct {
		Command string `json:"command"`
		Timeout *int64 `json:"timeout,omitempty"`
	}
	copilotHandler struct {
		Type       string `json:"type"`
		Bash       string `json:"bash"`
		PowerShell string `json:"powershell,omitempty"` // on Windows
		TimeoutSec *int64 `json:"timeoutSec,omitempty"`
	}
	versioned struct {
		Version int            `json:"version"`
		Hooks   map[string]any `json:"hooks"`
	}
)

func (a *Agent) timeout(e Entry) *int64 {
	if e.Timeout == 0 {
		return nil
	}
	n := int64(math.Ceil(float64(e.Timeout) / float64(a.Unit)))
	return &n
}

func (a *Agent) handler(e Entry) handler {
	return handler{Type: "command", Command: e.Command, Timeout: a.timeout(e)}
}

func (a *Agent) group(e Entry) group {
	g := group{Hooks: []handler{a.handler(e)}, Metadata: a.Metadata[e.Event]}
	if e.Matched {
		g.Matcher = "*"
		if a.MatchAll != "" {
			g.Matcher = a.MatchAll
		}
	}
	return g
}

// Install returns the settings with spec's hooks in place of any the binary
// had: other keys, other tools' hooks, comments and formatting stay as they
// are, and a second run changes nothing.
func (s Spec) Install(a *Agent, data []byte, path string) ([]byte, error) {
	entries := s.Entries(a, path)
	switch a.Shape {
	case agent.File:
		return s.fileContent(a, entries), nil
	case agent.PluginFile:
		return s.pluginContent(a, entries, path), nil
	case agent.Tables:
		return s.tomlInstall(a, entries, data)
	case agent.NestedFile:
		data = nil // our own file, written whole
	}
	d, err := parseDoc(data, a.Strict)
	if err != nil {
		return nil, err
	}
	root := d.root.Value.(*hujson.Object)
	switch a.Shape {
	case agent.Named:
		body := map[string]any{}
		for _, e := range entries {
			if e.Matched {
				body[e.Event] = []group{a.group(e)}
			} else {
				body[e.Event] = []handler{a.handler(e)}
			}
		}
		key := "hookwire-" + s.Binary
		if m := member(root, key); m == nil || !reflect.DeepEqual(value(m), roundTrip(body)) {
			d.setMember(root, key, body, 1)
		}
	case agent.Nested, agent.NestedFile, agent.Flat, agent.TopLevel:
		hooks, hdepth, err := d.hooksObject(a, root)
		if err != nil {
			return nil, err
		}
		want := map[string]Entry{}
		for _, e := range entries {
			want[e.Event] = e
		}
		// Our entries of events no longer wanted go.
		emptied := map[string]bool{}
		for i := range hooks.Members {
			if name, ok := hooks.Members[i].Name.Value.(hujson.Literal); ok {
				if _, keep := want[name.String()]; !keep && s.removeFrom(a, &hooks.Members[i].Value) {
					emptied[name.String()] = true
				}
			}
		}
		for _, e := range entries {
			arr, depth := member(hooks, e.Event), hdepth+1
			if arr == nil {
				arr, depth = d.setMember(hooks, e.Event, []any{}, hdepth+1)
			}
			list, ok := arr.Value.(*hujson.Array)
			if !ok {
				return nil, fmt.Errorf("hooks.%s is not a list", e.Event)
			}
			var wantEntry any = a.group(e)
			if a.Shape == agent.Flat {
				wantEntry = cursorHandler{Command: e.Command, Timeout: a.timeout(e)}
			}
			if s.current(a, list, roundTrip(wantEntry)) {
				continue // already exactly so: leave it where it is
			}
			s.removeFrom(a, arr)
			d.appendElement(list, wantEntry, depth)
		}
		dropEmpty(hooks, emptied)
	}
	return d.bytes(), nil
}

// Uninstall returns the settings without the binary's hooks.
func (s Spec) Uninstall(a *Agent, data []byte) ([]byte, error) {
	if a.Shape == agent.Tables {
		return s.tomlInstall(a, nil, data)
	}
	d, err := parseDoc(data, a.Strict)
	if err != nil {
		return nil, err
	}
	root := d.root.Value.(*hujson.Object)
	switch a.Shape {
	case agent.Named:
		removeMember(root, "hookwire-"+s.Binary)
	case agent.TopLevel:
		emptied := map[string]bool{}
		for i := range root.Members {
			if s.removeFrom(a, &root.Members[i].Value) {
				emptied[root.Members[i].Name.Value.(hujson.Literal).String()] = true
			}
		}
		dropEmpty(root, emptied)
	case agent.Nested, agent.NestedFile, agent.Flat:
		if hooks, ok := memberObject(root, "hooks"); ok {
			emptied := map[string]bool{}
			for i := range hooks.Members {
				if s.removeFrom(a, &hooks.Members[i].Value) {
					emptied[hooks.Members[i].Name.Value.(hujson.Literal).String()] = true
				}
			}
			dropEmpty(hooks, emptied)
			if len(emptied) > 0 && len(hooks.Members) == 0 {
				dropHooks(a, root)
			}
		}
	}
	return d.bytes(), nil
}

// dropHooks removes the "hooks" object uninstall emptied, as install adds
// it where there was none (with Cursor's "version": 1 directly before it).
// The version goes with it when it is 1 and directly before "hooks", as
// install writes it: a Cursor file that had a version there and no hooks
// before install loses it.
func dropHooks(a *Agent, root *hujson.Object) {
	for i := range root.Members {
		if name, ok := root.Members[i].Name.Value.(hujson.Literal); !ok || name.String() != "hooks" {
			continue
		}
		removeAt(root, i)
		if a.Shape == agent.Flat && i > 0 {
			v := &root.Members[i-1]
			if name, ok := v.Name.Value.(hujson.Literal); ok && name.String() == "version" && reflect.DeepEqual(value(&v.Value), 1.0) {
				removeAt(root, i-1)
			}
		}
		return
	}
}

// hooksObject finds (or makes) the object that maps events to lists, and
// the depth its closing brace is at.
func (d *doc) hooksObject(a *Agent, root *hujson.Object) (*hujson.Object, int, error) {
	if a.Shape == agent.TopLevel {
		return root, 0, nil // the file is the map of events
	}
	h, depth := member(root, "hooks"), 1
	if h == nil {
		// Cursor's file says its version; one that has hooks already is
		// read as it is, and keeps what it says.
		if v := member(root, "version"); v == nil && a.Shape == agent.Flat {
			d.setMember(root, "version", 1, 1)
		}
		h, depth = d.setMember(root, "hooks", map[string]any{}, 1)
		h.Value.(*hujson.Object).AfterExtra = d.pad(depth) // its events go one a line
	}
	obj, ok := h.Value.(*hujson.Object)
	if !ok {
		return nil, 0, fmt.Errorf(`"hooks" is not an object`)
	}
	return obj, depth, nil
}

func memberObject(obj *hujson.Object, key string) (*hujson.Object, bool) {
	m := member(obj, key)
	if m == nil {
		return nil, false
	}
	o, ok := m.Value.(*hujson.Object)
	return o, ok
}

// current reports whether list holds our entry exactly as wanted, once,
// and no other entry of ours.
func (s Spec) current(a *Agent, list *hujson.Array, want any) bool {
	found := 0
	for i := range list.Elements {
		if !s.ownsEntry(a, value(&list.Elements[i])) {
			continue
		}
		if !reflect.DeepEqual(value(&list.Elements[i]), want) {
			return false
		}
		found++
	}
	return found == 1
}

// ownsEntry reports whether a list element is ours: a Cursor handler with
// our command, or a group whose handlers are all ours.
func (s Spec) ownsEntry(a *Agent, v any) bool {
	m, _ := v.(map[string]any)
	if a.Shape == agent.Flat {
		c, _ := m["command"].(string)
		return s.owns(c)
	}
	hs, _ := m["hooks"].([]any)
	if len(hs) == 0 {
		return false
	}
	for _, h := range hs {
		hm, _ := h.(map[string]any) // a settings file may hold anything here
		c, _ := hm["command"].(string)
		if !s.owns(c) {
			return false
		}
	}
	return true
}

// removeFrom drops our handlers from an event's list: whole entries that
// are ours, and our handlers inside groups shared with other tools. It
// reports whether anything was removed.
func (s Spec) removeFrom(a *Agent, list *hujson.Value) bool {
	arr, ok := list.Value.(*hujson.Array)
	if !ok {
		return false
	}
	removed := removeElements(arr, func(i int) bool { return s.ownsEntry(a, value(&arr.Elements[i])) }) > 0
	if a.Shape != agent.Nested && a.Shape != agent.TopLevel {
		return removed
	}
	for i := range arr.Elements {
		g, ok := arr.Elements[i].Value.(*hujson.Object)
		if !ok {
			continue
		}
		if hs := member(g, "hooks"); hs != nil {
			if inner, ok := hs.Value.(*hujson.Array); ok {
				removed = removeElements(inner, func(j int) bool {
					h, _ := value(&inner.Elements[j]).(map[string]any)
					c, _ := h["command"].(string)
					return s.owns(c)
				}) > 0 || removed
			}
		}
	}
	return removed
}

// dropEmpty removes the events that our removals left with no hooks (an
// empty list someone else wrote stays).
func dropEmpty(hooks *hujson.Object, emptied map[string]bool) {
	for name := range emptied {
		if arr, ok := member(hooks, name).Value.(*hujson.Array); ok && len(arr.Elements) == 0 {
			removeMember(hooks, name)
		}
	}
}

// fileContent is a Copilot hooks file of our own.
func (s Spec) fileContent(a *Agent, entries []Entry) []byte {
	hooks := map[string]any{}
	for _, e := range entries {
		h := copilotHandler{Type: "command", Bash: e.Command, TimeoutSec: a.timeout(e)}
		if onWindows && a.WindowsShell == agent.ShellPowerShell {
			h.Bash, h.PowerShell = e.Bash, e.Command
		}
		hooks[e.Event] = []copilotHandler{h}
	}
	// Not HTML-escaped: PowerShell's call operator reads & to a person.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(versioned{Version: 1, Hooks: hooks})
	return b.Bytes()
}

// pluginContent is the agent's plugin, running the binary at path for the
// entries' events, each with its timeout. The plugin names each event in
// the payload it hands over: no positional argument.
func (s Spec) pluginContent(a *Agent, entries []Entry, path string) []byte {
	command := []string{path}
	if !a.Unflagged {
		command = append(command, "--agent", a.Name)
	}
	events := map[string]time.Duration{}
	for _, e := range entries {
		events[e.Event] = e.Timeout
	}
	return a.Plugin.Source(command, events)
}

// roundTrip is v as encoding/json decodes it, to compare with a document's.
func roundTrip(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.NewDecoder(bytes.NewReader(b)).Decode(&out)
	return out
}
