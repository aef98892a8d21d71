package combined

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/safefile"
)

type remoteInstall struct {
	Host    string `arg:"" help:"The ssh host."`
	Name    string `help:"The host's name on the surfaces (default: its ssh alias, cleaned)."`
	Command string `default:"${relay}" help:"What ssh runs on the host."`
	DryRun  bool   `name:"dry-run" help:"Print the service file and the commands; change nothing."`
}

type remoteUninstall struct {
	Host   string `arg:"" help:"The ssh host (or the --name it was installed with)."`
	Name   string `help:"The name it was installed with."`
	DryRun bool   `name:"dry-run" help:"Print what would be done; change nothing."`
}

// serviceEnv are the variables a service carries from the shell that
// installs it: where this desktop's surfaces are, and PATH (ssh, noctalia).
// A token is never written into a service file: VPet's comes from its file.
var serviceEnv = []string{"PATH", "PULSE_TARGET", "PULSE_LOG", "COUCOU_SOCKET", "COUCOU_DECISION_TIMEOUT",
	"VPET_NOTIFY_SOCKET", "VPET_NOTIFY_TOKEN_FILE", "VPET_NOTIFY_EVENTS", "AGENTICA_NOTIFY_SOCKET", "AGENTICA_NOTIFY_TOKEN_FILE"}

// service is a user service that runs hookwire remote for one host.
type service struct {
	goos, name, file, text string
	start, stop            [][]string // the commands that load and unload it
}

// newService builds the service for host on goos.
func newService(goos, host, name, command string, getenv func(string) string) (*service, error) {
	if host == "" || strings.HasPrefix(host, "-") {
		return nil, usagef("%q is not a host", host)
	}
	n := remote.HostName(host)
	if name != "" {
		n = remote.HostName(name)
	}
	if n == "" {
		return nil, usagef("%q has nothing of [a-z0-9-] to name it by: give --name", host)
	}
	exe, err := Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot tell where this hookwire is (%v): run it by its full path", err)
	}
	argv := []string{exe, "remote", "--name", n}
	if command != DefaultRelay {
		argv = append(argv, "--command", command)
	}
	argv = append(argv, host)
	var env [][2]string
	for _, k := range serviceEnv {
		if v := getenv(k); v != "" {
			env = append(env, [2]string{k, v})
		}
	}
	// A service is a Unix one (systemd, launchd): its paths have slashes
	// (package path), whatever system computes them.
	home := getenv("HOME")
	s := &service{goos: goos, name: n}
	switch goos {
	case "linux", "freebsd", "openbsd", "netbsd":
		unit := "hookwire-remote-" + n + ".service"
		dir := getenv("XDG_CONFIG_HOME")
		if !path.IsAbs(dir) {
			dir = path.Join(home, ".config")
		}
		s.file = path.Join(dir, "systemd", "user", unit)
		s.text = systemdUnit(host, argv, env)
		s.start = [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", unit}}
		s.stop = [][]string{{"systemctl", "--user", "disable", "--now", unit}, {"systemctl", "--user", "daemon-reload"}}
	case "darwin":
		label := "dev.hookwire.remote." + n
		s.file = path.Join(home, "Library", "LaunchAgents", label+".plist")
		s.text = launchdPlist(label, argv, env, path.Join(home, "Library", "Logs", "hookwire-remote-"+n+".log"))
		domain := "gui/" + strconv.Itoa(os.Getuid())
		s.start = [][]string{{"launchctl", "bootstrap", domain, s.file}}
		s.stop = [][]string{{"launchctl", "bootout", domain + "/" + label}}
	default:
		return nil, fmt.Errorf("no user service on %s: run %s at logon (Task Scheduler)", goos, strings.Join(argv, " "))
	}
	if !path.IsAbs(home) {
		return nil, errors.New("HOME is not set: nowhere to write the service")
	}
	return s, nil
}

// systemdUnit is the unit's text: restarted whenever it ends, started
// with the user's session.
func systemdUnit(host string, argv []string, env [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by hookwire remote install: %s's agents on this desktop's surfaces.\n", host)
	b.WriteString("# hookwire remote uninstall " + host + " removes it.\n")
	b.WriteString("[Unit]\nDescription=hookwire remote " + systemdEscape(host) + "\n")
	b.WriteString("Documentation=https://github.com/hookwire/hookwire/blob/main/docs/remote.md\n\n")
	b.WriteString("[Service]\nExecStart=")
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(systemdQuote(a))
	}
	b.WriteByte('\n')
	for _, kv := range env {
		b.WriteString("Environment=" + systemdQuote(kv[0]+"="+kv[1]) + "\n")
	}
	b.WriteString("Restart=always\nRestartSec=5\n\n[Install]\nWantedBy=default.target\n")
	return b.String()
}

// systemdQuote is one word of a unit's command line or Environment=, as
// systemd reads it: quoted when it must be, % and $ doubled (no
// specifiers, no variables).
func systemdQuote(s string) string {
	s = systemdEscape(s)
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func systemdEscape(s string) string {
	return strings.NewReplacer("%", "%%", "$", "$$", "\n", " ").Replace(s)
}

// launchdPlist is the launch agent's text: started at login, kept alive.
func launchdPlist(label string, argv []string, env [][2]string, log string) string {
	x := func(s string) string {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + x(label) + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range argv {
		b.WriteString("\t\t<string>" + x(a) + "</string>\n")
	}
	b.WriteString("\t</array>\n")
	if len(env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, kv := range env {
			b.WriteString("\t\t<key>" + x(kv[0]) + "</key>\n\t\t<string>" + x(kv[1]) + "</string>\n")
		}
		b.WriteString("\t</dict>\n")
	}
	b.WriteString(`	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<true/>
	<key>StandardErrorPath</key>
	<string>` + x(log) + `</string>
</dict>
</plist>
`)
	return b.String()
}

func quoteCommand(argv []string) string {
	var out []string
	for _, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$`;&|<>()*?[]#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// Run writes the service and starts it.
func (c *remoteInstall) Run(r *remoteRun) error {
	s, err := newService(runtime.GOOS, c.Host, c.Name, c.Command, os.Getenv)
	if err != nil {
		return err
	}
	if c.DryRun {
		fmt.Fprintf(r.stdout, "# %s\n%s\n", s.file, s.text)
		for _, cmd := range s.start {
			fmt.Fprintln(r.stdout, quoteCommand(cmd))
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.file), 0o755); err != nil {
		return err
	}
	if err := safefile.WriteFile(s.file, []byte(s.text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "wrote %s\n", s.file)
	if err := runAll(r, s.start); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "%s's agents now show on this desktop whenever you are logged in (hookwire remote doctor %s checks the path)\n", c.Host, c.Host)
	return nil
}

// Run stops the service and removes it.
func (c *remoteUninstall) Run(r *remoteRun) error {
	s, err := newService(runtime.GOOS, c.Host, c.Name, DefaultRelay, os.Getenv)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(s.file); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no service for %s: %s is not there", c.Host, s.file)
	}
	if c.DryRun {
		fmt.Fprintf(r.stdout, "%s\nrm %s\n", quoteCommand(s.stop[0]), quoteCommand([]string{s.file}))
		for _, cmd := range s.stop[1:] {
			fmt.Fprintln(r.stdout, quoteCommand(cmd))
		}
		return nil
	}
	stopErr := runAll(r, s.stop[:1])
	if err := os.Remove(s.file); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "removed %s\n", s.file)
	if stopErr != nil {
		return stopErr
	}
	return runAll(r, s.stop[1:])
}

// runAll runs the service manager's commands, in order; when it is not
// there, it prints them for the person to run, and fails.
func runAll(r *remoteRun, cmds [][]string) error {
	for i, cmd := range cmds {
		if _, err := exec.LookPath(cmd[0]); err != nil {
			fmt.Fprintf(r.stdout, "%s is not on PATH; run:\n", cmd[0])
			for _, c := range cmds[i:] {
				fmt.Fprintf(r.stdout, "  %s\n", quoteCommand(c))
			}
			return fmt.Errorf("%s not found: the service is written, not started", cmd[0])
		}
		fmt.Fprintf(r.stdout, "$ %s\n", quoteCommand(cmd))
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Stdout, c.Stderr = r.stdout, r.stderr
		if err := c.Run(); err != nil {
			return fmt.Errorf("%s: %v", quoteCommand(cmd), err)
		}
	}
	return nil
}
