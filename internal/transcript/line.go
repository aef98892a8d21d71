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
	if !validLine(line) {
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
	msg := messageOf(env.message)
	if !msg.usage.IsObject() {
		return r, false
	}
	r.usage = usageOf(msg.usage)
	r.id, r.key = lineKeys(msg.id, env, line)
	if env.timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, env.timestamp); err == nil {
			r.ts = t.UnixMilli()
		}
	}
	if msg.model != "<synthetic>" {
		r.model = msg.model
	}
	r.sidechain = env.sidechain
	r.final = env.typ == "assistant" && msg.stop != "" && msg.stop != "tool_use"
	// One content block per line: most assistant lines (thinking, a tool
	// call with a file's contents) hold no text, and are not walked for it.
	if wantText && msg.content.IsArray() && bytes.Contains(line, textBlock) {
		msg.content.ForEach(func(_, block gjson.Result) bool {
			if block.Get("type").String() == "text" {
				r.text = block.Get("text").String()
			}
			return true
		})
	}
	return r, true
}

// message holds the fields of a line's message that a scan reads, read in
// one pass.
type message struct {
	id, model, stop string
	usage, content  gjson.Result
}

func messageOf(m gjson.Result) (msg message) {
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			msg.id = v.String()
		case "model":
			msg.model = v.String()
		case "usage":
			msg.usage = v
		case "content":
			msg.content = v
		case "stop_reason":
			msg.stop = v.String()
		}
		return true
	})
	return msg
}

// usageOf reads a message's token counts; anything that is not a number,
// or is negative, is 0.
func usageOf(usage gjson.Result) (u Usage) {
	usage.ForEach(func(k, v gjson.Result) bool {
		n := max(v.Int(), 0)
		switch k.Str {
		case "input_tokens":
			u.In = n
		case "output_tokens":
			u.Out = n
		case "cache_creation_input_tokens":
			u.CacheCreate = n
		case "cache_read_input_tokens":
			u.CacheRead = n
		}
		return true
	})
	return u
}

// lineKeys are a line's message id hash and the key it is counted once
// under: the message and its request, else the line's uuid, else the line.
func lineKeys(id string, e env, line []byte) (idHash, key uint64) {
	switch {
	case id != "":
		return hash64([]byte(id)), hash64([]byte(id), []byte(e.requestID))
	case e.uuid != "":
		return 0, hash64([]byte("uuid"), []byte(e.uuid))
	default:
		return 0, hash64([]byte("line"), bytes.TrimSpace(line))
	}
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

// maxDepth bounds a line's nesting. Transcript lines nest a dozen levels;
// gjson's validator recurses once per level, and a line of millions of
// brackets would take seconds and more stack than the runtime allows (a
// crash, the one non-zero exit a hook must never have).
const maxDepth = 512

// validLine is gjson.ValidBytes for a line nested no deeper than maxDepth,
// checked first in one linear pass.
func validLine(line []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return gjson.ValidBytes(line)
}
