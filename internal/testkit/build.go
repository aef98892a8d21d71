package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ReleaseFlags are the build flags of the shipped binaries: static, trimmed,
// stripped. Tests that run the binaries build them the same way.
var ReleaseFlags = []string{"-trimpath", "-ldflags=-s -w"}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// BuildSuite builds every command under cmd/ (and the quiettrue stand-in)
// once per test process, as released, and returns the directory holding them.
// Build tags, if any, are those of the first call (the live suite's
// hookwire_record adds its payload recorder).
func BuildSuite(moduleRoot string, tags ...string) (string, error) {
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "hookwire-bin-")
		if buildErr != nil {
			return
		}
		args := append([]string{"build", "-o", buildDir + string(os.PathSeparator)}, ReleaseFlags...)
		if len(tags) > 0 {
			args = append(args, "-tags="+strings.Join(tags, ","))
		}
		args = append(args, "./cmd/...", "./internal/testkit/quiettrue")
		cmd := exec.Command(goTool(), args...)
		cmd.Dir = moduleRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	return buildDir, buildErr
}

// goTool finds the go command: on PATH, or beside the one running the tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	return "go"
}

// CleanupAfter wraps a test binary's m so that the suite BuildSuite built is
// removed when the tests are done: 41 MB a run otherwise stays in the temp
// directory. TestMain passes CleanupAfter(m) where it would pass m.
func CleanupAfter(m interface{ Run() int }) interface{ Run() int } { return cleanupM{m} }

type cleanupM struct{ m interface{ Run() int } }

func (c cleanupM) Run() int {
	code := c.m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}
