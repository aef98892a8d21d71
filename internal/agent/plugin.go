package agent

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"time"
)

// pluginQueue is the queue every plugin of ours shares (opencode's, Kilo
// Code's, Pi's): how each event reaches the binary, one detached process
// after the other. An agent loads one file per plugin, so the queue is put
// into each plugin's source rather than imported.
//
//go:embed plugin_queue.js
var pluginQueue []byte

// withConfig is a plugin's source (opencode's, Pi's) with its config line,
// after the marker, filled in (the command, and each event's timeout in
// milliseconds), and the queue in place of its queue line.
func withConfig(src []byte, command []string, events map[string]time.Duration) []byte {
	ms := map[string]int64{}
	for ev, d := range events {
		ms[ev] = d.Milliseconds()
	}
	cfg, _ := json.Marshal(struct {
		Command []string         `json:"command"`
		Events  map[string]int64 `json:"events"`
	}{command, ms})
	src = replaceLine(src, "/*hookwire*/ const config = ", cfg)
	// The marker stays, on a line of its own: a reader of the installed
	// file sees where the queue came from.
	return replaceLine(src, "/*hookwire:queue*/", append([]byte("\n"), bytes.TrimRight(pluginQueue, "\n")...))
}

// replaceLine is src with what follows marker on its line replaced by with.
func replaceLine(src []byte, marker string, with []byte) []byte {
	i := bytes.Index(src, []byte(marker))
	if i < 0 {
		return src
	}
	j := bytes.IndexByte(src[i:], '\n')
	if j < 0 {
		j = len(src) - i
	}
	var b bytes.Buffer
	b.Write(src[:i+len(marker)])
	b.Write(with)
	b.Write(src[i+j:])
	return b.Bytes()
}
