package hookwire_test

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The module path the README's go install line names.
const modulePath = "github.com/hookwire/hookwire"

// TestGoInstall runs the README's `go install …/cmd/...@latest` against a
// module proxy on disk that serves this work tree as v1.2.3 (and every
// dependency from the module cache: no network), and checks that every
// binary installs and reports v1.2.3, and that the module as downloaded
// carries the LICENSE (what pkg.go.dev and a go install user get).
func TestGoInstall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds every binary from a module proxy: not with -short")
	}
	files := gitFiles(t)
	gomodcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	const version = "v1.2.3"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(gomod), "\n"); strings.TrimSpace(first) != "module "+modulePath {
		t.Fatalf("go.mod does not declare module %s", modulePath)
	}
	for name, b := range map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2026-11-30T12:00:00Z"}`,
		version + ".mod":  string(gomod),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeModuleZip(t, filepath.Join(dir, version+".zip"), modulePath+"@"+version+"/", files)

	bin, modcache := t.TempDir(), t.TempDir()
	cmd := exec.Command("go", "install", modulePath+"/cmd/...@latest")
	cmd.Dir = t.TempDir() // outside this module, as a user runs it
	cmd.Env = append(os.Environ(),
		"GOBIN="+bin,
		"GOPROXY="+fileURL(proxy)+","+fileURL(filepath.Join(strings.TrimSpace(string(gomodcache)), "cache", "download")),
		"GOMODCACHE="+modcache, // not the real cache: v1.2.3 would stay in it
		"GOFLAGS=-modcacherw",  // so that the test can remove it
		"GOSUMDB=off",          // the proxy's modules are this tree and the verified cache
		"GOTOOLCHAIN=local",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(modcache, filepath.FromSlash(modulePath)+"@"+version, "LICENSE"))
	if err != nil || !bytes.Equal(got, license) {
		t.Errorf("the downloaded module's LICENSE: %v; want LICENSE's bytes, not %q…", err, got[:min(len(got), 80)])
	}
	for _, name := range commands(t) {
		path := filepath.Join(bin, name)
		if _, err := os.Stat(path + exe()); err != nil {
			t.Errorf("go install did not install %s: %v", name, err)
			continue
		}
		info, err := exec.Command("go", "version", "-m", path+exe()).Output()
		if err != nil || !strings.Contains(string(info), "\tmod\t"+modulePath+"\t"+version+"\t") {
			t.Errorf("%s: build information does not name %s %s: %v\n%s", name, modulePath, version, err, info)
		}
		if got, err := versionOf(t, path+exe()); err != nil || got != wantVersion(name, version) {
			t.Errorf("%s --version: %q, %v; want %q", name, got, err, wantVersion(name, version))
		}
	}
}

// fileURL is a file:// URL for a local path (file:///C:/… on Windows).
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + p
}

func exe() string {
	if os.PathSeparator == '\\' {
		return ".exe"
	}
	return ""
}

// writeModuleZip writes files (slash paths from the work tree) as a module
// zip: every file under prefix, but those of a nested module (tools/, with
// its own go.mod), which a module zip leaves out.
func writeModuleZip(t *testing.T, path, prefix string, files []string) {
	t.Helper()
	var nested []string
	for _, name := range files {
		if dir, ok := strings.CutSuffix(name, "/go.mod"); ok {
			nested = append(nested, dir+"/")
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, name := range files {
		if slices.ContainsFunc(nested, func(dir string) bool { return strings.HasPrefix(name, dir) }) {
			continue
		}
		b, err := os.ReadFile(filepath.FromSlash(name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
