package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

// The transcripts the live suite recorded: the answer of the session is
// "All three steps are done: …", after narration ("Let me run step 1.",
// "Now I write the notes.") that Gemini's AfterAgent prompt_response also
// carries.
const liveAnswer = "All three steps are done: I ran a command, wrote notes.txt and read it back."

func TestGeminiAnswerRecorded(t *testing.T) {
	got, found, err := GeminiAnswer("../../testdata/transcripts/gemini-0.61.0/chats-session.jsonl", TailLimits{Window: 256})
	if err != nil || !found || got != liveAnswer {
		t.Errorf("GeminiAnswer = %q, %v, %v; want %q", got, found, err, liveAnswer)
	}
}

func TestCopilotAnswerRecorded(t *testing.T) {
	got, found, err := CopilotAnswer("../../testdata/transcripts/copilot-1.0.102/events.jsonl", TailLimits{Window: 256})
	if err != nil || !found || got != liveAnswer {
		t.Errorf("CopilotAnswer = %q, %v, %v; want %q", got, found, err, liveAnswer)
	}
}

func TestAnswerNotYet(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.jsonl")
	os.WriteFile(g, []byte(`{"id":"1","type":"gemini","content":"old answer"}
{"id":"2","type":"user","content":[{"text":"next"}]}
{"$set":{"lastUpdated":"x"}}
{"id":"3","type":"gem`), 0o600)
	if got, found, _ := GeminiAnswer(g, TailLimits{}); found || got != "" {
		t.Errorf("a turn with no model message yet: %q, %v", got, found)
	}
	mid := filepath.Join(dir, "mid.jsonl")
	os.WriteFile(mid, []byte(`{"type":"user.message","data":{"content":"go"}}
{"type":"assistant.message","data":{"content":"Let me run step 1.","toolRequests":[{"toolCallId":"t1","name":"bash"}]}}
{"type":"tool.execution_start","data":{"toolCallId":"t1"}}
`), 0o600)
	if got, found, _ := CopilotAnswer(mid, TailLimits{}); found || got != "" {
		t.Errorf("a file written up to a tool call (as at a live agentStop): %q, %v", got, found)
	}
	c := filepath.Join(dir, "c.jsonl")
	os.WriteFile(c, []byte(`{"type":"assistant.message","data":{"content":"old"}}
{"type":"user.message","data":{"content":"next"}}
`), 0o600)
	if got, found, _ := CopilotAnswer(c, TailLimits{}); found || got != "" {
		t.Errorf("a turn with no assistant message yet: %q, %v", got, found)
	}
}
