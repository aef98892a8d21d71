package hookwire

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scripts/surfaces.pin: every line an extract's name, repository, file,
// sed program, pinned commit and SHA-256, for each surface hookwire talks to.
func TestSurfacesPin(t *testing.T) {
	b, err := os.ReadFile("scripts/surfaces.pin")
	if err != nil {
		t.Fatal(err)
	}
	hex := regexp.MustCompile(`^[0-9a-f]+$`)
	repos := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 || f[3] == "" || len(f[4]) != 40 || !hex.MatchString(f[4]) || len(f[5]) != 64 || !hex.MatchString(f[5]) {
			t.Errorf("scripts/surfaces.pin: %q is not name, repository, file, program, commit and SHA-256, tab separated", line)
			continue
		}
		repos[f[1]] = true
	}
	for _, r := range []string{"noctalia-dev/community-plugins", "Louis-CFM/coucou", "cdknorow/coral", "jedarden/trail-boss"} {
		if !repos[r] {
			t.Errorf("scripts/surfaces.pin: nothing of %s", r)
		}
	}
}

// The surfaces' canary (scripts/surfaces, run weekly by
// .github/workflows/surfaces.yml) on files written for the test: --update
// pins their extracts' checksums; then an unchanged extract is ok, and a
// changed line, a file that is gone and an extract no longer found each fail
// it, naming the extract, showing the new one and where to compare.
func TestSurfacesCanary(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	from, dir := t.TempDir(), t.TempDir()
	pin := filepath.Join(dir, "surfaces.pin")
	write := func(path, text string) {
		t.Helper()
		p := filepath.Join(from, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("acme/app/server.go", "package x\n\nfunc Other() {}\n\nfunc Route(w, r) {\n\tread(\"cache_write_tokens\")\n}\n")
	write("acme/app/docs/AGENTS.md", "# Agents\n\n- **Linux:** `$XDG_RUNTIME_DIR/app.sock`\n")
	write("acme/daemon/index.ts", "if (url === \"/event\") {\n  ok();\n}\n")
	os.WriteFile(pin, []byte("# a test's pins\n\n"+
		"route\tacme/app\tserver.go\t/^func Route(/,/^}/p\t-\t-\n"+
		"socket\tacme/app\tdocs/AGENTS.md\t/\\.sock/p\t-\t-\n"+
		"event\tacme/daemon\tindex.ts\t/\"\\/event\"/,/^}/p\t-\t-\n"), 0o644)

	run := func(args ...string) (string, error) {
		cmd := exec.Command("sh", append([]string{"scripts/surfaces"}, args...)...)
		cmd.Env = append(os.Environ(), "SURFACES_FROM="+from, "SURFACES_PIN="+pin, "GITHUB_STEP_SUMMARY=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err == nil {
		t.Fatalf("nothing pinned yet: passed\n%s", out)
	}
	if out, err := run("--update"); err != nil {
		t.Fatalf("--update: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(pin)
	if !strings.HasPrefix(string(b), "# a test's pins\n\nroute\tacme/app\tserver.go\t/^func Route(/,/^}/p\tlocal\t") {
		t.Errorf("--update wrote:\n%s", b)
	}
	out, err := run()
	if err != nil || strings.Count(out, "ok ") != 3 {
		t.Fatalf("unchanged: %v\n%s", err, out)
	}

	// A field renamed in the route; the daemon gone; the socket line reworded.
	write("acme/app/server.go", "package x\n\nfunc Route(w, r) {\n\tread(\"cache_creation_tokens\")\n}\n")
	os.Remove(filepath.Join(from, "acme/daemon/index.ts"))
	write("acme/app/docs/AGENTS.md", "# Agents\n\nLinux: see the socket.\n")
	out, err = run()
	if err == nil {
		t.Fatalf("changed surfaces passed:\n%s", out)
	}
	for _, want := range []string{
		"CHANGED route: acme/app@local server.go: changed\n",
		"  what moved: https://github.com/acme/app/compare/local...local\n",
		"::error title=surface changed::route: acme/app@local server.go: changed; see https://github.com/acme/app/compare/local...local\n",
		"    | \tread(\"cache_creation_tokens\")\n",
		"CHANGED socket: acme/app@local docs/AGENTS.md: gone (nothing in docs/AGENTS.md matches its extract)\n",
		"CHANGED event: acme/daemon@local index.ts: gone (index.ts is not there)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
