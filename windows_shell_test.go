//go:build windows

package hookwire_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/testkit"
)

// What install writes runs in cmd.exe as each agent runs it there
// (docs/reference/windows-shells.md): nb-hook.exe at a path with a space,
// installed for the agent, then the command line it wrote handed to cmd.exe
// the way the agent hands it over, with a Stop payload on stdin, delivers
// the event to Coucou's pipe. Claude Code runs its hooks in Git Bash, or in
// cmd.exe where Git Bash is not set up, both through Node's
// `cmd.exe /d /s /c "COMMAND"`; Qwen Code likewise in cmd.exe; Codex runs
// `%COMSPEC% /C COMMAND`, its argument quoted by Rust, where only a bare
// path survives (so its case has no space). PowerShell and Git Bash are not
// in Wine: Gemini CLI's and Copilot CLI's PowerShell lines are checked as
// bytes only (windows_install_claude.txtar).
func TestInstalledCommandRunsInCmd(t *testing.T) {
	exe := nbHookExe(t)
	for _, tc := range []struct {
		agent, settings, dir string
		cmdline              func(command string) string
	}{
		{"claude", `.claude\settings.json`, `Program Files\hook wire`, func(c string) string { return `cmd.exe /d /s /c "` + c + `"` }},
		{"qwen", `.qwen\settings.json`, `Program Files\hook wire`, func(c string) string { return `cmd.exe /d /s /c "` + c + `"` }},
		{"codex", `.codex\hooks.json`, `hookwire\bin`, func(c string) string { return `cmd.exe /C "` + strings.ReplaceAll(c, `"`, `\"`) + `"` }},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			prog := filepath.Join(dir, tc.dir, "nb-hook.exe")
			for _, d := range []string{filepath.Dir(prog), filepath.Dir(filepath.Join(home, tc.settings))} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(prog, exe, 0o755); err != nil {
				t.Fatal(err)
			}
			env := append(baseEnv(dir), "USERPROFILE="+home, "HOME=")
			install := exec.Command(prog, "install", "--agent", tc.agent, "--path", prog)
			install.Env = env
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("install: %v: %s", err, out)
			}
			b, err := os.ReadFile(filepath.Join(home, tc.settings))
			if err != nil {
				t.Fatal(err)
			}
			command := stopCommand(t, b)

			pipe := `\\.\pipe\hookwire-test-` + randomUUID(t)
			got := make(chan string, 1)
			ln, err := testkit.ListenPipe(pipe)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				c.Write([]byte(`{"ok":true}` + "\n"))
				got <- line
			}()

			cmd := inCmd(tc.cmdline(command))
			cmd.Env = append(env, "COUCOU_SOCKET="+pipe)
			cmd.Stdin = strings.NewReader(`{"session_id":"s1","cwd":"C:\\w","hook_event_name":"Stop"}`)
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Fatalf("%s: %v: %q", tc.cmdline(command), err, out)
			}
			select {
			case line := <-got:
				if !strings.Contains(line, `"hook_event_name":"Stop"`) {
					t.Errorf("Coucou got %q", line)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("%s: nothing reached Coucou", tc.cmdline(command))
			}
		})
	}
}

// nbHookExe is the suite's nb-hook.exe, to copy where a test needs it.
func nbHookExe(t *testing.T) []byte {
	t.Helper()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(filepath.Join(bin, "nb-hook.exe"))
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// inCmd is cmd.exe (%ComSpec%) started with cmdline as its whole command
// line, verbatim, as an agent's runtime hands it over.
func inCmd(cmdline string) *exec.Cmd {
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = "cmd.exe"
	}
	cmd := exec.Command(comspec)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdline}
	return cmd
}

// stopCommand is the command line of the Stop hook install wrote.
func stopCommand(t *testing.T, settings []byte) string {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(settings, &s); err != nil {
		t.Fatal(err)
	}
	for _, g := range s.Hooks["Stop"] {
		for _, h := range g.Hooks {
			if strings.Contains(h.Command, "nb-hook.exe") {
				return h.Command
			}
		}
	}
	t.Fatalf("no Stop hook runs nb-hook.exe in\n%s", settings)
	return ""
}

// nb-hook's status line, installed over one the user had, runs in cmd.exe
// as Claude Code hands it over there (`cmd.exe /d /s /c "COMMAND"`), and
// chains that one: the previous command reaches the shell Claude Code would
// run it with (CLAUDE_CODE_GIT_BASH_PATH, here a program that prints its
// arguments) as one word, the very command. In sh's single quotes cmd.exe
// split it, and nb-hook refused its own command line.
func TestStatusLineRunsInCmd(t *testing.T) {
	exe := nbHookExe(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	echo, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	prog := filepath.Join(dir, `Program Files\hook wire`, "nb-hook.exe")
	bash := filepath.Join(dir, "argv-echo.exe")
	for _, d := range []string{filepath.Dir(prog), filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(prog, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bash, echo, 0o755); err != nil {
		t.Fatal(err)
	}
	const prev = `node C:\Users\me\.claude\status line.js --short`
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.WriteFile(settings, []byte(`{"statusLine": {"type": "command", "command": "node C:\\Users\\me\\.claude\\status line.js --short"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(baseEnv(dir), "USERPROFILE="+home, "HOME=")
	install := exec.Command(prog, "install", "--agent", "claude", "--statusline", "--path", prog)
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v: %s", err, out)
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		StatusLine struct {
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if err := json.Unmarshal(b, &s); err != nil || !strings.Contains(s.StatusLine.Command, "--statusline") {
		t.Fatalf("no status line of nb-hook's in\n%s", b)
	}

	cmdline := `cmd.exe /d /s /c "` + s.StatusLine.Command + `"`
	cmd := inCmd(cmdline)
	cmd.Env = append(env, "CLAUDE_CODE_GIT_BASH_PATH="+bash, `COUCOU_SOCKET=\\.\pipe\hookwire-test-`+randomUUID(t))
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","model":{"display_name":"Opus"}}`)
	out, err := cmd.Output()
	want, _ := json.Marshal([]string{"-c", prev})
	if err != nil || string(out) != string(want)+"\n" {
		t.Fatalf("%s: %v: the status line printed %q, want the previous one's %s", cmdline, err, out, want)
	}
}
