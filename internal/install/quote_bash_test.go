package install

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/hookwire/hookwire/internal/agent"
)

// What install writes for Git Bash (Claude Code's hooks on Windows) is
// read back by bash as the very path: bash's quoting is Git Bash's, so this
// runs wherever bash is (Wine has no Git Bash; cmd.exe's reading is
// TestInstalledCommandRunsInCmd's, under Wine).
func TestQuoteBashParsesBack(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash on PATH: %v", err)
	}
	if runtime.GOOS == "windows" && !strings.Contains(strings.ToLower(bash), `\git\`) {
		t.Skipf("the bash on PATH, %s, is not Git Bash (WSL's?)", bash)
	}
	for _, p := range []string{
		`C:\Users\me\bin\nb-hook.exe`,
		`C:\Program Files\hookwire\nb-hook.exe`,
		`\\srv\$share\nb-hook.exe`,
		"C:\\Users\\a`b\\nb-hook.exe",
		`C:\Users\Jo $mith\n\t\nb-hook.exe`,
		`C:\odd\ends with a backslash\`,
	} {
		quoted := quoteFor(agent.ShellBash, p)
		out, err := exec.Command(bash, "-c", `printf '%s\n' `+quoted).Output()
		if got := strings.TrimSuffix(string(out), "\n"); err != nil || got != p {
			t.Errorf("bash reads %s as %q (%v), want %q", quoted, got, err, p)
		}
	}
}
