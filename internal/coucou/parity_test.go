package coucou

import (
	"testing"
	"time"
)

// The relay's clock is on every line, in microseconds, and replaces a value
// the payload brought (the Rust relay's lifecycle test: the timestamp is
// relay-owned).
func TestEventTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	for _, in := range []string{
		`{"session_id":"s","hook_event_name":"Stop","cwd":"/w"}`,
		`{"session_id":"s","hook_event_name":"Stop","cwd":"/w","coucou_event_time_us":1}`,
	} {
		line, _, ok := Translate([]byte(in), Input{Now: now})
		want := `{"coucou_event_time_us":1796040000123456,"cwd":"/w","hook_event_name":"Stop","session_id":"s"}`
		if !ok || string(line) != want {
			t.Errorf("%s:\n got %s\nwant %s", in, line, want)
		}
	}
}

func TestTermEditor(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CURSOR_TRACE_ID": "abc"}, "cursor"},
		{map[string]string{"VSCODE_GIT_ASKPASS_NODE": `C:\Users\me\AppData\Local\Programs\cursor\Cursor.exe`}, "cursor"},
		{map[string]string{"VSCODE_GIT_ASKPASS_NODE": "/usr/share/cursor/cursor"}, "cursor"},
		{map[string]string{"VSCODE_GIT_ASKPASS_NODE": `C:\Users\me\AppData\Local\Programs\Microsoft VS Code\Code.exe`}, ""},
		{map[string]string{"VSCODE_GIT_ASKPASS_NODE": "/opt/cursor/code"}, ""}, // the executable's name decides, not its folder
		{map[string]string{"CURSOR_TRACE_ID": ""}, ""},
		{map[string]string{"TERM_PROGRAM": "vscode"}, ""},
	} {
		got := termEditor(Input{Getenv: func(k string) string { return tc.env[k] }})
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestUpdatedInput(t *testing.T) {
	in := []byte(`{"questions":[{"question":"Which one?","options":[{"label":"A"},{"label":"B"}]},{"question":"Extras?","multiSelect":true,"options":[{"label":"Tests"},{"label":"Docs"}]}],"extra":1}`)
	want := `{"answers":{"Extras?":["Docs"],"Which one?":"A"},"extra":1,"questions":[{"question":"Which one?","options":[{"label":"A"},{"label":"B"}]},{"question":"Extras?","multiSelect":true,"options":[{"label":"Tests"},{"label":"Docs"}]}]}`
	for _, reply := range []string{
		`{"permissionDecision":"answer","answers":{"Which one?":"A","Extras?":["Docs"]}}`,
		`{"answers":{"Which one?":"A","Extras?":["Docs"]}}`,
		`{"answers":[["A"],["Docs"]]}`,
	} {
		got, ok := UpdatedInput(in, []byte(reply))
		if !ok || string(got) != want {
			t.Errorf("%s:\n got %s %v\nwant %s", reply, got, ok, want)
		}
	}
	for _, reply := range []string{
		`{"permissionDecision":"allow","answers":{"Which one?":"A","Extras?":["Docs"]}}`,
		`{"answers":{"Which one?":["A"],"Extras?":["Docs"]}}`,
		`{"answers":{"Which one?":"A","Extras?":"Docs"}}`,
		`{"answers":{"Which one?":"A","Extras?":[]}}`,
		`{"answers":{"Which one?":"A","Extras?":["Docs"],"Other?":"x"}}`,
		`{"answers":[["A"]]}`,
		`{"answers":[["A","B"],["Docs"]]}`,
		`{"answers":"A"}`,
		`{"command":"rm -rf /"}`,
		`allow`,
	} {
		if got, ok := UpdatedInput(in, []byte(reply)); ok {
			t.Errorf("%s: accepted as %s", reply, got)
		}
	}
	if _, ok := UpdatedInput([]byte(`{"questions":[]}`), []byte(`{"answers":{}}`)); ok {
		t.Error("no questions: accepted")
	}
}
