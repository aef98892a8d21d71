package hookwire_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The platforms .goreleaser.yaml builds for, as its build lines say them.
const (
	releaseGoos   = "goos: [linux, darwin, windows]"
	releaseGoarch = "goarch: [amd64, arm64]"
)

// TestSnapshotRelease runs the release (GoReleaser, pinned in tools/go.mod)
// as a snapshot for this machine's platform only, into a scratch dist, and
// checks what a user would get: the archive with every binary, SHA256SUMS
// that match, the .deb: its listing, and every binary unpacked from it
// reporting the release's version; and in the archive and every package
// (.deb, .rpm, .apk, Arch), the LICENSE, byte for byte, where that format
// wants it. The .rpm, .apk and Arch packages come from the same nFPM
// contents. It runs when HOOKWIRE_RELEASE_TEST is set, as .ci/run sets it.
// The full six-platform snapshot is
//
//	go tool -modfile=tools/go.mod goreleaser release --snapshot --clean --skip=publish
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
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd to open the Arch package (.ci/run installs it)")
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
	// The cask names no license (Homebrew casks have no such stanza); what
	// it installs is the archive, checked below. The AUR's PKGBUILD wants a
	// Linux archive.
	skip := "publish,homebrew"
	if runtime.GOOS != "linux" {
		skip += ",aur"
	}
	cmd := exec.Command("go", "tool", "-modfile=tools/go.mod", "goreleaser", "release", "--snapshot", "--clean",
		"--skip="+skip, "--config", cfgPath)
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
	if len(files) != 5 {
		t.Errorf("SHA256SUMS lists %d files, want the archive and four packages:\n%s", len(files), sums)
	}

	// The LICENSE, in the archive and in each package where its format's
	// policy wants it: Debian's copyright file; /usr/share/licenses for
	// Fedora, Alpine and Arch.
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ end, path string }{
		{"_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz", "LICENSE"},
		{".deb", "usr/share/doc/hookwire/copyright"},
		{".rpm", "usr/share/licenses/hookwire/LICENSE"},
		{".apk", "usr/share/licenses/hookwire/LICENSE"},
		{".pkg.tar.zst", "usr/share/licenses/hookwire/LICENSE"},
	} {
		pkg := byEnd(p.end)
		got, ok := packageFile(t, pkg, p.path)
		switch {
		case !ok:
			t.Errorf("%s has no %s", filepath.Base(pkg), p.path)
		case !bytes.Equal(got, license):
			t.Errorf("%s: %s differs from LICENSE: %q…", filepath.Base(pkg), p.path, got[:min(len(got), 80)])
		}
	}

	if runtime.GOOS == "linux" {
		aurPackage(t, filepath.Join(dist, "aur", "hookwire-bin.pkgbuild"), archive, license, cmds)
	}

	// The archive: every binary, the license, the README and the design.
	want := append(slices.Clone(cmds), "ARCHITECTURE.md", "LICENSE", "README.md")
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
	docs := []string{"./usr/share/doc/hookwire/README.md", "./usr/share/doc/hookwire/ARCHITECTURE.md"}
	pages, _ := filepath.Glob("docs/*.md") // what the README links to, beside it
	for _, page := range pages {
		docs = append(docs, "./usr/share/doc/hookwire/"+filepath.ToSlash(page))
	}
	for _, p := range docs {
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
		if got, err := versionOf(t, bin); err != nil || got != wantVersion(name, version) {
			t.Errorf("%s --version: %q, %v; want %q", name, got, err, wantVersion(name, version))
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

// versionOf runs bin --version, in a state directory of the test's own.
func versionOf(t *testing.T, bin string) (string, error) {
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// wantVersion is what name --version prints.
func wantVersion(name, version string) string { return name + " " + version }

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

// aurPackage checks the AUR's hookwire-bin: its PKGBUILD says MIT, and its
// package(), run as makepkg runs it (in the unpacked archive, into
// $pkgdir), installs every binary and the LICENSE where Arch wants them.
func aurPackage(t *testing.T, pkgbuild, archive string, license []byte, cmds []string) {
	t.Helper()
	b, err := os.ReadFile(pkgbuild)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^license=\('MIT'\)$`).Match(b) {
		t.Errorf("%s: no license=('MIT'):\n%s", pkgbuild, b)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Logf("no bash: the PKGBUILD's package() not run")
		return
	}
	srcdir, pkgdir := t.TempDir(), t.TempDir()
	if out, err := exec.Command("tar", "-xzf", archive, "-C", srcdir).CombinedOutput(); err != nil {
		t.Fatalf("tar -xzf %s: %v\n%s", archive, err, out)
	}
	cmd := exec.Command("bash", "-ec", `source "$1"; cd "$srcdir"; package`, "bash", pkgbuild)
	cmd.Env = append(os.Environ(), "srcdir="+srcdir, "pkgdir="+pkgdir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the PKGBUILD's package(): %v\n%s\n%s", err, out, b)
	}
	for _, c := range cmds {
		if fi, err := os.Stat(filepath.Join(pkgdir, "usr", "bin", c)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("the AUR package installs no executable /usr/bin/%s: %v", c, err)
		}
	}
	got, err := os.ReadFile(filepath.Join(pkgdir, "usr", "share", "licenses", "hookwire-bin", "LICENSE"))
	if err != nil || !bytes.Equal(got, license) {
		t.Errorf("the AUR package's /usr/share/licenses/hookwire-bin/LICENSE: %v; want LICENSE's bytes, not %q…", err, got[:min(len(got), 80)])
	}
}

// packageFile reads the regular file name (a path without a leading slash)
// from a release archive or a Linux package; ok is false when the package
// holds no such file.
func packageFile(t *testing.T, pkg, name string) (b []byte, ok bool) {
	t.Helper()
	switch {
	case strings.HasSuffix(pkg, ".deb"):
		out, err := exec.Command("dpkg-deb", "--fsys-tarfile", pkg).Output()
		if err != nil {
			t.Fatalf("dpkg-deb --fsys-tarfile %s: %v", pkg, err)
		}
		return tarFile(t, bytes.NewReader(out), name)
	case strings.HasSuffix(pkg, ".pkg.tar.zst"):
		out, err := exec.Command("zstd", "-dc", pkg).Output()
		if err != nil {
			t.Fatalf("zstd -dc %s: %v", pkg, err)
		}
		return tarFile(t, bytes.NewReader(out), name)
	case strings.HasSuffix(pkg, ".rpm"):
		return rpmFile(t, pkg, name)
	}
	f, err := os.Open(pkg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatalf("%s: %v", pkg, err)
	}
	if !strings.HasSuffix(pkg, ".apk") {
		return tarFile(t, zr, name)
	}
	// An .apk is gzip streams end to end (the control tar, then the data
	// tar), each a tar of its own.
	for {
		zr.Multistream(false)
		if b, ok := tarFile(t, zr, name); ok {
			return b, true
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		if err := zr.Reset(br); err == io.EOF {
			return nil, false
		} else if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
	}
}

// tarFile reads the regular file name from a tar stream, whose names may
// start with "./" or "/".
func tarFile(t *testing.T, r io.Reader, name string) ([]byte, bool) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, false
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg && path.Clean("/" + h.Name)[1:] == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b, true
		}
	}
}

// rpmFile reads the regular file name from an .rpm: a 96-byte lead, the
// signature header (padded to 8 bytes), the header, then the payload,
// nFPM's default gzip over a cpio archive in the "newc" format. No rpm2cpio
// is needed, which a Debian or Ubuntu CI machine lacks.
func rpmFile(t *testing.T, pkg, name string) ([]byte, bool) {
	t.Helper()
	b, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	off := 96
	for i := range 2 {
		if len(b) < off+16 || !bytes.Equal(b[off:off+3], []byte{0x8e, 0xad, 0xe8}) {
			t.Fatalf("%s: no rpm header at byte %d", pkg, off)
		}
		entries, size := binary.BigEndian.Uint32(b[off+8:]), binary.BigEndian.Uint32(b[off+12:])
		off += 16 + 16*int(entries) + int(size)
		if i == 0 {
			off = (off + 7) &^ 7
		}
	}
	if off > len(b) {
		t.Fatalf("%s: headers past the end of the file", pkg)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b[off:]))
	if err != nil {
		t.Fatalf("%s: payload: %v", pkg, err)
	}
	cpio, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: payload: %v", pkg, err)
	}
	const hdrLen = 110 // "070701", then 13 fields of 8 hex digits
	for len(cpio) >= hdrLen {
		if string(cpio[:6]) != "070701" {
			t.Fatalf("%s: payload: not a newc cpio archive: %q", pkg, cpio[:6])
		}
		field := func(i int) int {
			v, err := strconv.ParseUint(string(cpio[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				t.Fatalf("%s: payload: cpio field %d: %v", pkg, i, err)
			}
			return int(v)
		}
		mode, size, nameLen := field(1), field(6), field(11)
		dataStart := (hdrLen + nameLen + 3) &^ 3
		dataEnd := dataStart + size
		if dataEnd > len(cpio) {
			t.Fatalf("%s: payload: truncated cpio archive", pkg)
		}
		entry := strings.TrimSuffix(string(cpio[hdrLen:hdrLen+nameLen]), "\x00")
		if entry == "TRAILER!!!" {
			break
		}
		if mode&0o170000 == 0o100000 && path.Clean("/" + entry)[1:] == name {
			return cpio[dataStart:dataEnd], true
		}
		cpio = cpio[min((dataEnd+3)&^3, len(cpio)):]
	}
	return nil, false
}

// The Homebrew cask names its binaries one by one (GoReleaser's binaries
// stanza), where the archives and packages take every build: it must name
// every command under cmd/, which the snapshot release (it skips the cask)
// would not notice.
func TestReleaseNamesEveryBinary(t *testing.T) {
	b, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^homebrew_casks:\n(?:\s.*\n)*?\s+binaries: \[([^\]]*)\]`).FindSubmatch(b)
	if m == nil {
		t.Fatal(".goreleaser.yaml: no binaries list in homebrew_casks")
	}
	var listed []string
	for _, f := range strings.Split(string(m[1]), ",") {
		listed = append(listed, strings.TrimSpace(f))
	}
	slices.Sort(listed)
	want := commands(t)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("the cask's binaries are %v, want every command under cmd/: %v", listed, want)
	}
}
