package transcripttest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Reference computes the exact totals of a session the obvious way, sharing
// no code with the scanner: decode every line of every file with
// encoding/json, keep each message's largest value of each field, sum. A
// sidechain line of the main file that repeats a message id already seen is
// a /btw replay and does not count.
func Reference(transcript string, subagents bool) Usage {
	type msg struct {
		Type        string          `json:"type"`
		IsSidechain bool            `json:"isSidechain"`
		UUID        string          `json:"uuid"`
		RequestID   string          `json:"requestId"`
		Data        json.RawMessage `json:"data"`
		Message     struct {
			ID    string `json:"id"`
			Usage *struct {
				In  int64 `json:"input_tokens"`
				Out int64 `json:"output_tokens"`
				CC  int64 `json:"cache_creation_input_tokens"`
				CR  int64 `json:"cache_read_input_tokens"`
			} `json:"usage"`
		} `json:"message"`
	}
	best := map[string]Usage{}
	seenID := map[string]bool{}
	read := func(path string, main bool) {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			var m msg
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			if m.Type == "progress" {
				if !subagents {
					continue
				}
				var d struct {
					Message json.RawMessage `json:"message"`
				}
				json.Unmarshal(m.Data, &d)
				m = msg{}
				if json.Unmarshal(d.Message, &m) != nil {
					continue
				}
			}
			if m.Message.Usage == nil {
				continue
			}
			key := "uuid:" + m.UUID
			if m.Message.ID != "" {
				if main && m.IsSidechain && seenID[m.Message.ID] {
					continue
				}
				key = m.Message.ID + "/" + m.RequestID
				seenID[m.Message.ID] = true
			}
			u := m.Message.Usage
			best[key] = best[key].Max(Usage{In: u.In, Out: u.Out, CacheCreate: u.CC, CacheRead: u.CR})
		}
	}
	read(transcript, true)
	if subagents {
		matches, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents", "agent-*.jsonl"))
		for _, p := range matches {
			read(p, false)
		}
	}
	var total Usage
	for _, u := range best {
		total = total.Add(u)
	}
	return total
}
