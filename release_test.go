package hookwire_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The release script builds every binary for this machine, stamped with its
// version, with checksums that match.
func TestReleaseScript(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dist := t.TempDir()
	cmd := exec.Command("sh", "scripts/release", "--host")
	cmd.Env = append(os.Environ(), "DIST="+dist, "VERSION=v0.0.0-test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, _ := os.ReadDir("cmd")
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != len(cmds) {
		t.Fatalf("%d checksums for %d commands:\n%s", len(lines), len(cmds), sums)
	}
	for _, line := range lines {
		sum, name, _ := strings.Cut(line, "  ")
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: checksum mismatch", name)
		}
	}
	for _, c := range cmds {
		bin := filepath.Join(dist, c.Name()+"-"+runtime.GOOS+"-"+runtime.GOARCH)
		out, err := exec.Command(bin, "--version").Output()
		if err != nil || strings.TrimSpace(string(out)) != c.Name()+" v0.0.0-test" {
			t.Errorf("%s --version: %q, %v", c.Name(), out, err)
		}
	}
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
