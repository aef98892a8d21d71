package agent

import (
	"reflect"
	"testing"
	"time"
)

// The surfaces' one rule for tools left open: a tool is remembered by its
// id, else its name; a subagent's is marked (a turn boundary leaves it
// open); they close in the order they started.
func TestOpenTools(t *testing.T) {
	t0 := time.Unix(100, 0)
	main := Open(Event{ToolUseID: "toolu_2", Time: t0.Add(time.Second)}, "Read")
	sub := Open(Event{ToolUseID: "toolu_1", Time: t0.Add(2 * time.Second), Subagent: "a-1"}, "Bash")
	named := Open(Event{Time: t0}, "Shell")
	if main.Sub || !sub.Sub {
		t.Errorf("Sub: main %v, subagent's %v", main.Sub, sub.Sub)
	}
	if named.Key() != "name:Shell" || main.Key() != "toolu_2" || ToolKey("", "") != "" {
		t.Errorf("keys %q %q %q", named.Key(), main.Key(), ToolKey("", ""))
	}
	tools := []OpenTool{sub, main, named}
	SortOpen(tools)
	if want := []OpenTool{named, main, sub}; !reflect.DeepEqual(tools, want) {
		t.Errorf("order %+v, want %+v", tools, want)
	}
}
