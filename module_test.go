package hookwire_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestModuleRequirements keeps go.mod what a user of the module downloads:
// every module it requires serves a package the project builds or tests,
// as `go mod why -m -vendor` says (-vendor leaves out the dependencies' own
// tests), and it pins no tool. The release and lint tools (GoReleaser,
// staticcheck), with their three hundred modules, live in tools/go.mod and
// run as `go tool -modfile=tools/go.mod …`.
func TestModuleRequirements(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "mod", "edit", "-json").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var mod struct {
		Require []struct{ Path string }
		Tool    []struct{ Path string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	for _, tool := range mod.Tool {
		t.Errorf("go.mod pins the tool %s: tools go in tools/go.mod", tool.Path)
	}
	if len(mod.Require) == 0 {
		t.Fatal("go.mod requires nothing")
	}
	args := []string{"mod", "why", "-m", "-vendor"}
	for _, r := range mod.Require {
		args = append(args, r.Path)
	}
	out, err = exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go mod why: %v\n%s", err, out)
	}
	// One block per module: "# path", then the import chain from one of
	// this module's packages, or "(main module does not need …)".
	blocks := strings.Split(strings.TrimSpace(string(out)), "\n\n")
	if len(blocks) != len(mod.Require) {
		t.Fatalf("go mod why: %d blocks for %d requirements:\n%s", len(blocks), len(mod.Require), out)
	}
	for _, b := range blocks {
		lines := strings.Split(b, "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], modulePath+"/") && lines[1] != modulePath {
			t.Errorf("go.mod requires a module no package of %s needs:\n%s", modulePath, b)
		}
	}
}
