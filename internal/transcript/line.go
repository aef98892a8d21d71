package transcript

import (
	"bytes"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// usageKey is the prefilter: a line that does not contain it cannot carry
// usage and is skipped without being parsed.
var usageKey = []byte(`"usage"`)

var textBlock = []byte(`"text"`) // in a text block, as its type and as its key

// A record is what one transcript line says about usage.
type record struct {
	key       uint64 // the message: message.id and requestId, else the line's uuid, else its bytes
	id        uint64 // message.id alone, 0 when absent
	usage     Usage
	ts        int64 // Unix milliseconds, 0 when absent
	model     string
	sidechain bool
	progress  bool   // a subagent message nested in a progress line
	text      string // the last text block, when asked for
	// final is an assistant message that ends its turn: a stop reason
	// other than tool_use.
	final bool
}

// parseLine reads a line that passed the prefilter. ok is false for a line
// that is malformed or carries no usage.
func parseLine(line []byte, wantText bool) (r record, ok bool) {
	if !gjson.ValidBytes(line) {
		return r, false
	}
	// gjson.ParseBytes would copy the line, which can be many MiB. The
	// strings read from it alias the scan buffer: whatever is kept beyond
	// this line (the model, a text) is cloned where it is kept.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
	if !root.IsObject() {
		return r, false
	}
	env := envelope(root)
	if env.typ == "progress" {
		// A subagent's message, nested: data.message is its own envelope.
		if !env.data.IsObject() {
			return r, false
		}
		env = envelope(env.data)
		r.progress = true
	}
	if !env.message.IsObject() {
		return r, false
	}
	var id, model, stop string
	var usage, content gjson.Result
	env.message.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			id = v.String()
		case "model":
			model = v.String()
		case "usage":
			usage = v
		case "content":
			content = v
		case "stop_reason":
			stop = v.String()
		}
		return true
	})
	if !usage.IsObject() {
		return r, false
	}
	usage.ForEach(func(k, v gjson.Result) bool {
		n := v.Int() // 0 for anything that is not a number
		if n < 0 {
			n = 0
		}
		switch k.Str {
		case "input_tokens":
			r.usage.In = n
		case "output_tokens":
			r.usage.Out = n
		case "cache_creation_input_tokens":
			r.usage.CacheCreate = n
		case "cache_read_input_tokens":
			r.usage.CacheRead = n
		}
		return true
	})
	switch {
	case id != "":
		r.id = hash64([]byte(id))
		r.key = hash64([]byte(id), []byte(env.requestID))
	case env.uuid != "":
		r.key = hash64([]byte("uuid"), []byte(env.uuid))
	default:
		r.key = hash64([]byte("line"), bytes.TrimSpace(line))
	}
	if env.timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, env.timestamp); err == nil {
			r.ts = t.UnixMilli()
		}
	}
	if model != "<synthetic>" {
		r.model = model
	}
	r.sidechain = env.sidechain
	r.final = env.typ == "assistant" && stop != "" && stop != "tool_use"
	// One content block per line: most assistant lines (thinking, a tool
	// call with a file's contents) hold no text, and are not walked for it.
	if wantText && content.IsArray() && bytes.Contains(line, textBlock) {
		content.ForEach(func(_, block gjson.Result) bool {
			if block.Get("type").String() == "text" {
				r.text = block.Get("text").String()
			}
			return true
		})
	}
	return r, true
}

// env holds the fields of a line's envelope, read in one pass: a line can be
// many MiB, so each field is not looked up separately.
type env struct {
	typ, requestID, uuid, timestamp string
	sidechain                       bool
	message, data                   gjson.Result
}

func envelope(o gjson.Result) env {
	var e env
	o.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			e.typ = v.String()
		case "requestId":
			e.requestID = v.String()
		case "uuid":
			e.uuid = v.String()
		case "timestamp":
			e.timestamp = v.String()
		case "isSidechain":
			e.sidechain = v.Bool()
		case "message":
			e.message = v
		case "data":
			e.data = v.Get("message")
		}
		return true
	})
	return e
}
