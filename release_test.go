package hookwire_test

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The platforms .goreleaser.yaml builds for, as its build lines say them.
const (
	releaseGoos   = "goos: [linux, darwin, windows]"
	releaseGoarch = "goarch: [amd64, arm64]"
)

// TestSnapshotRelease runs the release (GoReleaser, pinned in go.mod) as a
// snapshot for this machine's platform only, into a scratch dist, and checks
// what a user would get: the archive with every binary, SHA256SUMS that
// match, and the .deb: its listing, and every binary unpacked from it
// reporting the release's version. The .rpm, .apk and Arch packages come
// from the same nFPM contents. It runs when HOOKWIRE_RELEASE_TEST is set, as
// .ci/run sets it. The full six-platform snapshot is
//
//	go tool goreleaser release --snapshot --clean --skip=publish
func TestSnapshotRelease(t *testing.T) {
	t.Parallel()
	if os.Getenv("HOOKWIRE_RELEASE_TEST") == "" {
		// Building GoReleaser the first time takes minutes and a few hundred
		// modules: not what a newcomer's first test run should pay.
		t.Skip("set HOOKWIRE_RELEASE_TEST=1 to build the snapshot release (.ci/run does)")
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb to list and unpack the .deb (Debian's dpkg; .ci/run has it on Linux)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: GoReleaser versions the snapshot from the repository")
	}
	if err := exec.Command("git", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git work tree (a module download): GoReleaser needs one")
	}

	full, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(full)
	for _, line := range []string{releaseGoos, releaseGoarch} {
		if strings.Count(cfg, line) != 1 {
			t.Fatalf(".goreleaser.yaml: want %q once (the release's platforms)", line)
		}
	}
	dist := filepath.Join(t.TempDir(), "dist")
	cfg = strings.Replace(cfg, releaseGoos, "goos: ["+runtime.GOOS+"]", 1)
	cfg = strings.Replace(cfg, releaseGoarch, "goarch: ["+runtime.GOARCH+"]", 1)
	cfg += "\ndist: " + dist + "\n"
	cfgPath := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The cask and the AUR package want every platform's archives; the
	// host-only run has one.
	cmd := exec.Command("go", "tool", "goreleaser", "release", "--snapshot", "--clean",
		"--skip=publish,homebrew,aur", "--config", cfgPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser: %v\n%s", err, out)
	}

	var meta struct{ Version string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	if meta.Version == "" || !strings.Contains(meta.Version, "snapshot") {
		t.Fatalf("metadata.json: version %q, want a snapshot version", meta.Version)
	}
	version := "v" + meta.Version
	cmds := commands(t)

	// SHA256SUMS: one line per archive and package, each matching.
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: checksum mismatch", name)
		}
		files = append(files, name)
	}
	byEnd := func(suffix string) string {
		t.Helper()
		var found []string
		for _, f := range files {
			if strings.HasSuffix(f, suffix) {
				found = append(found, f)
			}
		}
		if len(found) != 1 {
			t.Fatalf("SHA256SUMS: %d files ending in %s, want 1:\n%s", len(found), suffix, sums)
		}
		return filepath.Join(dist, found[0])
	}
	archive := byEnd("_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz") // a zip on Windows, which has no dpkg-deb
	deb := byEnd(".deb")
	for _, end := range []string{".rpm", ".apk", ".pkg.tar.zst"} {
		byEnd(end)
	}
	if len(files) != 5 {
		t.Errorf("SHA256SUMS lists %d files, want the archive and four packages:\n%s", len(files), sums)
	}

	// The archive: every binary, the README and the design.
	want := append(slices.Clone(cmds), "ARCHITECTURE.md", "README.md")
	slices.Sort(want)
	if got := tarNames(t, archive); !slices.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", filepath.Base(archive), got, want)
	}

	// The .deb: its listing, then its binaries, unpacked, run.
	out, err := exec.Command("dpkg-deb", "-c", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb -c: %v", err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		listed[fields[len(fields)-1]] = true
	}
	for _, p := range []string{"./usr/share/doc/hookwire/README.md", "./usr/share/doc/hookwire/ARCHITECTURE.md"} {
		if !listed[p] {
			t.Errorf("the .deb lacks %s:\n%s", p, out)
		}
	}
	root := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, root).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	for _, name := range cmds {
		if !listed["./usr/bin/"+name] {
			t.Errorf("the .deb lacks ./usr/bin/%s:\n%s", name, out)
			continue
		}
		bin := filepath.Join(root, "usr", "bin", name)
		out, err := exec.Command(bin, "--version").Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != name+" "+version {
			t.Errorf("%s --version: %q, %v; want %q", name, got, err, name+" "+version)
		}
		if runtime.GOOS == "linux" {
			assertStatic(t, bin)
		}
	}
}

// assertStatic fails unless the ELF file needs no dynamic loader and no
// shared library: the binaries run on any Linux, musl or glibc.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s: dynamically linked (has an interpreter)", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s: needs %q", path, libs)
	}
}

func commands(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("cmd")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// tarNames lists a .tar.gz's regular files, sorted.
func tarNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			names = append(names, h.Name)
		}
	}
	slices.Sort(names)
	return names
}

// The binaries build for the other systems they ship for.
func TestCrossCompile(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"windows/amd64", "darwin/arm64"} {
		goos, goarch, _ := strings.Cut(target, "/")
		cmd := exec.Command("go", "build", "-o", t.TempDir()+string(os.PathSeparator), "./cmd/...")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", target, err, out)
		}
	}
}

// No binary links net/http or crypto/tls: their initialization and size
// cost every hook run about 0.7 ms of CPU (httpsend speaks HTTP/1.1 itself).
func TestNoNetHTTP(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./cmd/...").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "net/http" || pkg == "crypto/tls" {
			t.Errorf("a binary links %s", pkg)
		}
	}
}
