package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexListed is what Codex 0.169's app-server (hooks/list) reported for
// the hooks.json that the five binaries' `install --agent codex` wrote into
// CODEX_HOME=/tmp/dx/ch2: every hook's key and the hash it must be trusted by.
func codexListed(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/codex-0.169.0-hooks-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			Hooks []struct {
				Key, CurrentHash, Command string
			}
		}
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	// The keys name the file as Codex saw it on Linux; codexHooks names it
	// by its absolute path here (on Windows Z:\tmp\…).
	recorded := "/tmp/dx/ch2/hooks.json"
	abs, _ := filepath.Abs(recorded)
	out := map[string]string{}
	for _, h := range list.Data[0].Hooks {
		out[strings.Replace(h.Key, recorded, abs, 1)] = h.CurrentHash
	}
	return out
}

func TestCodexHashesAreCodexs(t *testing.T) {
	listed := codexListed(t)
	data, err := os.ReadFile("testdata/codex-0.169.0-hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, bin := range []string{"pulse-claude", "nb-hook", "vpet-notify", "coral-pulse", "trailboss-hook"} {
		hooks, err := Spec{Binary: bin}.codexHooks("/tmp/dx/ch2/hooks.json", data)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hooks {
			seen++
			want, ok := listed[h.Key]
			if !ok {
				t.Errorf("%s: key %s: Codex lists no such hook", bin, h.Key)
				continue
			}
			if h.Hash != want {
				t.Errorf("%s: %s: hash %s, Codex's %s", bin, h.Key, h.Hash, want)
			}
		}
	}
	if seen != len(listed) {
		t.Errorf("%d of our hooks, Codex lists %d (StopFailure is no 0.169 event: it has none)", seen, len(listed))
	}
}

func TestCodexTrustStates(t *testing.T) {
	listed := codexListed(t)
	data, err := os.ReadFile("testdata/codex-0.169.0-hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Binary: "nb-hook"}
	hooks, _ := spec.codexHooks("/tmp/dx/ch2/hooks.json", data)
	// As /hooks writes it: one table per hook. The first is trusted as
	// Codex computed it, the second as an older install was, the third is
	// turned off; the others were never trusted.
	configOf := func(hooks []codexHook) string {
		return "model = \"gpt-5\"\n\n[hooks.state]\n\n" +
			"[hooks.state." + quoteTOML(hooks[0].Key) + "]\ntrusted_hash = \"" + hooks[0].Hash + "\"\n\n" +
			"[hooks.state." + quoteTOML(hooks[1].Key) + "]\ntrusted_hash = \"sha256:0000\"\n\n" +
			"[hooks.state." + quoteTOML(hooks[2].Key) + "]\nenabled = false\n"
	}
	if hooks[0].Hash != listed[hooks[0].Key] {
		t.Fatalf("%s: hash %s, Codex's %s", hooks[0].Key, hooks[0].Hash, listed[hooks[0].Key])
	}
	config := configOf(hooks)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	states, err := codexHookStates(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := states[hooks[0].Key].TrustedHash; got != hooks[0].Hash {
		t.Errorf("trusted hash read %q, want %q", got, hooks[0].Hash)
	}
	if !states[hooks[2].Key].Disabled {
		t.Errorf("enabled = false not read")
	}

	// doctor reads config.toml beside hooks.json.
	hooksPath := filepath.Join(dir, "hooks.json")
	moved := string(data)
	movedHooks, _ := spec.codexHooks(hooksPath, data)
	config = configOf(movedHooks)
	os.WriteFile(hooksPath, []byte(moved), 0o600)
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600)
	var got []string
	for _, f := range spec.codexTrust(hooksPath, []byte(moved)) {
		got = append(got, f.What)
	}
	want := []string{
		"codex: 7 of nb-hook's hooks are not trusted, and Codex skips them: PreToolUse, SessionEnd, SessionStart, Stop, SubagentStart, SubagentStop, UserPromptSubmit",
		"codex: 1 of nb-hook's hooks changed since you trusted them (" + filepath.Join(dir, "config.toml") + "), and Codex skips them: PermissionRequest",
		"codex: 1 of nb-hook's hooks are turned off in " + filepath.Join(dir, "config.toml") + ": PostToolUse",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("doctor says\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCodexTrustInlineTables(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte(`[hooks.state]
"/h/hooks.json:stop:0:0" = { trusted_hash = "sha256:ab", enabled = true }
'/h/hooks.json:stop:0:1' = {enabled=false}
[other]
trusted_hash = "sha256:not-a-hook"
`), 0o600)
	states, err := codexHookStates(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 2 || states["/h/hooks.json:stop:0:0"].TrustedHash != "sha256:ab" || !states["/h/hooks.json:stop:0:1"].Disabled {
		t.Errorf("states %+v", states)
	}
}

func quoteTOML(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
