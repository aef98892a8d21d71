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

// The previous status line install chains on Windows is one word, the same
// command, to Git Bash (bash -c) and to install's own reading of it back
// (words, for uninstall): double quotes where cmd.exe reads it the same too
// (windows_shell_test.go runs that under Wine), sh's single quotes otherwise.
func TestQuotePreviousParsesBack(t *testing.T) {
	defer func(w bool) { onWindows = w }(onWindows)
	onWindows = true
	for _, c := range []struct {
		prev   string
		double bool
	}{
		{`node C:\Users\me\.claude\statusline.js`, true},
		{`C:\Program Files\tools\line.exe --short`, true},
		{`bash ~/.claude/statusline.sh`, true},
		{`npx -y ccstatusline@latest`, true},
		{`node "C:\Program Files\x.js"`, false}, // a quote
		{`echo %USERNAME%`, false},              // cmd.exe expands it
		{`echo $HOME`, false},                   // bash expands it
		{`\\srv\share\line.exe`, false},         // bash reads \\ as \
		{`C:\odd\ x`, false},                    // words reads "\ " as " "
		{`C:\ends\`, false},
		{"it's", true},
	} {
		q := quotePrevious(c.prev)
		if double := strings.HasPrefix(q, `"`); double != c.double {
			t.Errorf("quotePrevious(%q) = %s: double quotes %v, want %v", c.prev, q, double, c.double)
		}
		if w := words("nb-hook.exe --statusline --previous " + q); len(w) != 4 || w[3] != c.prev {
			t.Errorf("words reads %s back as %q, want %q", q, w, c.prev)
		}
		if bash, err := exec.LookPath("bash"); err == nil && runtime.GOOS != "windows" {
			out, err := exec.Command(bash, "-c", `printf '%s\n' `+q).Output()
			if got := strings.TrimSuffix(string(out), "\n"); err != nil || got != c.prev {
				t.Errorf("bash reads %s as %q (%v), want %q", q, got, err, c.prev)
			}
		}
	}
}
