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
		Timestamp   string          `json:"timestamp"`
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
	// The newest cost-state: its cumulative usage, the messages whose lines
	// came before it in the main file, and the newest time among them (a
	// subagent's message no newer was written before it too).
	var cost Usage
	var before map[string]bool
	var costTS string
	lastTS := ""
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
			if main && subagents && m.Type == "cost-state" {
				var c struct {
					ModelUsage map[string]struct {
						In  int64 `json:"inputTokens"`
						Out int64 `json:"outputTokens"`
						CR  int64 `json:"cacheReadInputTokens"`
						CC  int64 `json:"cacheCreationInputTokens"`
					} `json:"modelUsage"`
				}
				json.Unmarshal(sc.Bytes(), &c)
				var sum Usage
				for _, u := range c.ModelUsage {
					sum = sum.Add(Usage{In: u.In, Out: u.Out, CacheCreate: u.CC, CacheRead: u.CR})
				}
				if sum.Max(cost) == sum && sum != cost {
					cost, costTS = sum, lastTS
					before = map[string]bool{}
					for k := range best {
						before[k] = true
					}
				}
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
			if main && m.Timestamp > lastTS {
				lastTS = m.Timestamp
			}
			if !main && before != nil && m.Timestamp != "" && m.Timestamp <= costTS {
				before[key] = true
			}
		}
	}
	read(transcript, true)
	if subagents {
		matches, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents", "agent-*.jsonl"))
		for _, p := range matches {
			read(p, false)
		}
	}
	var total, covered Usage
	for k, u := range best {
		total = total.Add(u)
		if before[k] {
			covered = covered.Add(u)
		}
	}
	// What the cost-state counted beyond the messages it covers: calls
	// written as no message.
	return total.Add(cost.Sub(covered).Max(Usage{}))
}
