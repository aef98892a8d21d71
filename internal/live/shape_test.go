package live

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	hookagent "github.com/hookwire/hookwire/internal/agent"
)

// The shape check: every payload a live script's hooks received (the suite
// is built with the hookwire_record tag, which writes each one to
// $HOOKWIRE_RECORD_DIR) is compared, by the keys it has and their JSON
// types, with the payloads of the same event recorded from the pinned
// version (testdata/agents/<cmd>-<pinned>/, every session). On the pinned
// agents this proves the recordings the dialect tests read are still what
// the agent sends; on the newest releases (HOOKWIRE_AGENTS_SET=latest) it
// names the first payload that changed shape, which is what a dialect may
// have to follow.

// shape maps each key path of a payload, to depth 2, to its JSON type:
// "tool_name" → "string", "error.message" → "string". What a tool or the
// model put in a payload (a tool's arguments and result, a model request)
// is the scripted session's, not the agent's: only its type is kept.
type shape map[string]string

var opaque = map[string]bool{
	"tool_input": true, "tool_response": true, "toolArgs": true, "toolInput": true,
	"toolResult": true, "llm_request": true, "llm_response": true, "args": true,
}

func shapeOf(b []byte) shape {
	s := shape{}
	gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
		s[k.String()] = jsonType(v)
		if v.IsObject() && !opaque[k.String()] {
			v.ForEach(func(k2, v2 gjson.Result) bool {
				s[k.String()+"."+k2.String()] = jsonType(v2)
				return true
			})
		}
		return true
	})
	return s
}

func jsonType(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "object"
	case v.IsArray():
		return "array"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "bool"
	}
	return strings.ToLower(v.Type.String())
}

// baseline is what the pinned version sent for one event: every key any
// payload had, with its types, and the keys every payload had.
type baseline struct {
	types  map[string]map[string]bool
	always map[string]bool
}

func (b *baseline) add(s shape) {
	if b.types == nil {
		b.types, b.always = map[string]map[string]bool{}, map[string]bool{}
		for k := range s {
			b.always[k] = true
		}
	}
	for k := range b.always {
		if _, ok := s[k]; !ok {
			delete(b.always, k)
		}
	}
	for k, t := range s {
		if b.types[k] == nil {
			b.types[k] = map[string]bool{}
		}
		b.types[k][t] = true
	}
}

// diff says how s differs from the baseline: keys never seen, keys always
// seen and missing, types never seen.
func (b *baseline) diff(s shape) []string {
	var out []string
	for k, t := range s {
		switch {
		case b.types[k] == nil:
			out = append(out, fmt.Sprintf("+%s (%s)", k, t))
		case !b.types[k][t]:
			out = append(out, fmt.Sprintf("%s is %s, was %s", k, t, strings.Join(slices.Sorted(maps.Keys(b.types[k])), "|")))
		}
	}
	for k := range b.always {
		if _, ok := s[k]; !ok {
			out = append(out, "-"+k)
		}
	}
	slices.Sort(out)
	return out
}

// recordedBaselines reads testdata/agents/<dir>/**/NN-Event.json, by the
// event's name as a hook parses it (the recorder's name for it): Codex's
// notify argument, NN-notify.json, is its "agent-turn-complete".
func recordedBaselines(dir, cmd string) (map[string]*baseline, error) {
	out := map[string]*baseline{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		num, event, ok := strings.Cut(strings.TrimSuffix(d.Name(), ".json"), "-")
		if !ok || strings.Trim(num, "0123456789") != "" {
			return nil // usage.json and the like
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if ev := hookagent.Parse(hookagent.Input{Agent: cmd, Payload: b, Args: []string{event}}); ev.Name != "" {
			event = ev.Name
		}
		if out[event] == nil {
			out[event] = &baseline{}
		}
		out[event].add(shapeOf(b))
		return nil
	})
	return out, err
}

// reporter is what checkShapes tells: a *testing.T, or a test's stand-in.
type reporter interface {
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// received is one payload the hooks of a live script were handed.
type received struct {
	script, event, file string
	when                int64
	body                []byte
}

// receivedPayloads reads what the recorder wrote under root/<script>/,
// for the scripts of one agent (the script's name up to "_"), oldest first.
func receivedPayloads(root, cmd string) ([]received, error) {
	scripts, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []received
	for _, sd := range scripts {
		if a, _, _ := strings.Cut(sd.Name(), "_"); a != cmd {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, sd.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			// AGENT-EVENT-HASH.json (record_live.go).
			name := strings.TrimSuffix(f.Name(), ".json")
			name = name[:max(0, strings.LastIndexByte(name, '-'))]
			_, event, _ := strings.Cut(name, "-")
			p := filepath.Join(root, sd.Name(), f.Name())
			info, err := f.Info()
			if err != nil {
				return nil, err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			out = append(out, received{sd.Name(), event, p, info.ModTime().UnixNano(), b})
		}
	}
	slices.SortStableFunc(out, func(a, b received) int { return cmp.Compare(a.when, b.when) })
	return out, nil
}

// checkShapes compares what each agent's scripts received with the pinned
// version's recordings, and fails naming the agent, the version run and
// the first payload that changed shape (the others are logged).
func checkShapes(t reporter, root string, run, pins []agent) {
	for _, a := range run {
		pin := a
		for _, p := range pins {
			if p.cmd == a.cmd {
				pin = p
			}
		}
		dir := filepath.Join(moduleRoot, "testdata", "agents", pin.cmd+"-"+pin.version)
		base, err := recordedBaselines(dir, pin.cmd)
		if err != nil {
			t.Errorf("shapes: %s: %v", dir, err)
			continue
		}
		got, err := receivedPayloads(root, a.cmd)
		if err != nil {
			t.Errorf("shapes: %v", err)
			continue
		}
		changed, unknown := 0, map[string]bool{}
		for _, r := range got {
			b := base[r.event]
			if b == nil {
				unknown[r.event] = true
				continue
			}
			d := b.diff(shapeOf(r.body))
			if len(d) == 0 {
				continue
			}
			if changed++; changed == 1 {
				t.Errorf("shapes: %s %s (%s), script %s: the first payload that changed shape since the recordings of %s %s (%s): %s\n%s",
					a.cmd, a.version, a.pkg, r.script, pin.cmd, pin.version, filepath.Base(dir), strings.Join(d, ", "), clip(r.body))
			} else {
				t.Logf("shapes: %s %s, script %s, %s: %s", a.cmd, a.version, r.script, r.event, strings.Join(d, ", "))
			}
		}
		if len(unknown) > 0 {
			t.Logf("shapes: %s %s: events the recordings of %s have none of: %s",
				a.cmd, a.version, filepath.Base(dir), strings.Join(slices.Sorted(maps.Keys(unknown)), ", "))
		}
		if len(got) > 0 {
			t.Logf("shapes: %s %s: %d payloads, %d changed shape", a.cmd, a.version, len(got), changed)
		}
	}
}

func clip(b []byte) string {
	if len(b) > 1500 {
		return string(b[:1500]) + "…"
	}
	return string(b)
}
