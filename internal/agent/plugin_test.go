package agent

import (
	"strings"
	"testing"
)

// installedPlugin is what install must write for an embedded plugin: its
// source with the config line given and the shared queue under its queue
// line, nothing else changed.
func installedPlugin(t *testing.T, embedded []byte, configLine string) string {
	t.Helper()
	before, _, ok1 := strings.Cut(string(embedded), "/*hookwire*/")
	_, after, ok2 := strings.Cut(string(embedded), "events: {} }\n/*hookwire:queue*/\n")
	if !ok1 || !ok2 {
		t.Fatal("the plugin has no config line followed by its queue line")
	}
	return before + configLine + "/*hookwire:queue*/\n" + strings.TrimRight(string(pluginQueue), "\n") + "\n" + after
}
