package hookwire_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFlakeVendorHash keeps flake.nix's vendorHash true: it does what
// nixpkgs' buildGoModule does to compute it (go mod vendor, then the NAR
// hash of the vendor directory) and compares.
// A change to go.mod or go.sum that forgets flake.nix fails here, not in a
// Nix user's build.
func TestFlakeVendorHash(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("vendors every dependency: not with -short")
	}
	files := gitFiles(t)
	flake, err := os.ReadFile("flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`vendorHash = "(sha256-[A-Za-z0-9+/=]+)";`).FindSubmatch(flake)
	if m == nil {
		t.Fatal("flake.nix: no vendorHash")
	}
	want := string(m[1])
	// A postPatch would change go.mod before go mod vendor, and this test
	// does not: the tools that once needed one live in tools/go.mod.
	if bytes.Contains(flake, []byte("postPatch")) {
		t.Fatal("flake.nix: a postPatch, which this test does not apply before go mod vendor")
	}

	// The source as Nix sees it: the tracked files.
	src := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(filepath.FromSlash(f))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(src, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "mod", "vendor")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v\n%s", err, out)
	}
	sum, err := narSum(filepath.Join(src, "vendor"))
	if err != nil {
		t.Fatal(err)
	}
	if got := "sha256-" + base64.StdEncoding.EncodeToString(sum); got != want {
		t.Errorf("flake.nix: vendorHash = %q, but go mod vendor hashes to %q: update flake.nix", want, got)
	}
	// Where Nix is installed, it agrees.
	if nixHash, err := exec.LookPath("nix-hash"); err == nil {
		out, err := exec.Command(nixHash, "--type", "sha256", filepath.Join(src, "vendor")).Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != hex.EncodeToString(sum) {
			t.Errorf("nix-hash --type sha256 vendor: %q, %v; narSum: %x", got, err, sum)
		}
	}
}

// The Nix package says the license LICENSE grants, as nixpkgs names it.
func TestFlakeLicense(t *testing.T) {
	t.Parallel()
	flake, err := os.ReadFile("flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(license, []byte("MIT License\n")) {
		t.Fatalf("LICENSE is not the MIT license: flake.nix's meta.license needs updating with it")
	}
	if !regexp.MustCompile(`(?m)^\s*license = nixpkgs\.lib\.licenses\.mit;$`).Match(flake) {
		t.Error("flake.nix: meta has no license = nixpkgs.lib.licenses.mit")
	}
}

// narSum is the SHA-256 of path serialized as a Nix archive (NAR): the hash
// a fixed-output derivation with outputHashMode "recursive" checks.
func narSum(path string) ([]byte, error) {
	h := sha256.New()
	narString(h, "nix-archive-1")
	if err := narNode(h, path); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// narString writes a NAR string: its length (uint64, little-endian), its
// bytes, and zeros up to a multiple of 8.
func narString(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
	h.Write(make([]byte, (8-len(s)%8)%8))
}

func narNode(h hash.Hash, path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	narString(h, "(")
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return err
		}
		narString(h, "type")
		narString(h, "symlink")
		narString(h, "target")
		narString(h, target)
	case fi.IsDir():
		narString(h, "type")
		narString(h, "directory")
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		slices.Sort(names) // byte order, as Nix sorts
		for _, name := range names {
			narString(h, "entry")
			narString(h, "(")
			narString(h, "name")
			narString(h, name)
			narString(h, "node")
			if err := narNode(h, filepath.Join(path, name)); err != nil {
				return err
			}
			narString(h, ")")
		}
	default:
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		narString(h, "type")
		narString(h, "regular")
		if fi.Mode()&0o111 != 0 {
			narString(h, "executable")
			narString(h, "")
		}
		narString(h, "contents")
		narString(h, string(b))
	}
	narString(h, ")")
	return nil
}
