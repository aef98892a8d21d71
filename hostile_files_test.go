//go:build unix

package hookwire_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/agent"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/install"
	"github.com/hookwire/hookwire/internal/testkit"
)

// otherUID is the uid the tests play another local user with. An arbitrary
// uid needs no account: root can own files as it, and run a process as it.
const otherUID = 4242

// allSurfaces has hookwire install the hooks of every surface, so that
// every agent has some.
const allSurfaces = "nb-hook,pulse-claude,trailboss-hook,vpet-notify,coral-pulse"

// TestHostileRepository opens, for every agent with a project scope, a
// repository prepared by an attacker, and runs install --scope project in
// it. What the repository planted (a link from the backup's name or the
// settings' name to a file of the user's, a FIFO, a link from the settings'
// directory out of the repository, a file of another user) is refused with
// a reason, install exits non-zero, and nothing outside the repository
// changes. The links are planted in directories of the test's own (not
// sticky), so fs.protected_symlinks plays no part whatever its value.
func TestHostileRepository(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	const victimText = "{}\n// ssh-ed25519 AAAA the user's own key\n"
	type plant struct {
		name string
		// plant prepares the repository; settings is where the agent's
		// project settings go, victim a file of the user's outside it.
		plant  func(t *testing.T, repo, settings, victim string)
		why    string // in install's complaint
		asRoot bool   // needs root (chown to another uid)
	}
	plants := []plant{
		{name: "backup links to a file of the user's", why: "is a symbolic link", plant: func(t *testing.T, repo, settings, victim string) {
			write(t, settings, "{}\n")
			symlink(t, victim, settings+".hookwire.bak")
		}},
		{name: "settings link to a file of the user's", why: "is a symbolic link", plant: func(t *testing.T, repo, settings, victim string) {
			symlink(t, victim, settings)
		}},
		{name: "settings are a FIFO", why: "named pipe", plant: func(t *testing.T, repo, settings, victim string) {
			mkfifo(t, settings)
		}},
		{name: "backup is a FIFO", why: "named pipe", plant: func(t *testing.T, repo, settings, victim string) {
			write(t, settings, "{}\n")
			mkfifo(t, settings+".hookwire.bak")
		}},
		{name: "settings directory links out of the repository", why: "is a symbolic link", plant: func(t *testing.T, repo, settings, victim string) {
			rel, _ := filepath.Rel(repo, settings)
			first := filepath.Join(repo, strings.Split(rel, string(filepath.Separator))[0])
			os.RemoveAll(first)
			symlink(t, filepath.Dir(victim), first)
		}},
		{name: "settings of another user", why: "not to you", asRoot: true, plant: func(t *testing.T, repo, settings, victim string) {
			write(t, settings, "{}\n")
			if err := os.Chown(settings, otherUID, otherUID); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "backup of another user", why: "not to you", asRoot: true, plant: func(t *testing.T, repo, settings, victim string) {
			write(t, settings, "{}\n")
			write(t, settings+".hookwire.bak", "theirs")
			if err := os.Chown(settings+".hookwire.bak", otherUID, otherUID); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, name := range install.AgentNames() {
		a := install.Agents[name]
		if len(a.Project) == 0 {
			continue
		}
		if a.Shape == agent.EventFiles {
			// Cline's hooks are hookwire's own scripts in a folder, not a
			// settings file with a backup: a planted link is refused before
			// anything is written (internal/install's
			// TestEventFilesModeAndLinks), a user's own file is refused
			// (testdata/script/install_cline.txtar), a folder that links
			// out of the project as every project's (inProject).
			continue
		}
		run := func(t *testing.T, repo, home string) ([]byte, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, "hookwire"), "install", "--agent", name,
				"--surfaces", allSurfaces, "--scope", "project", "--path", "/usr/local/bin/hookwire")
			cmd.Dir = repo
			cmd.Env = baseEnv(home)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("install hung: %s", out)
			}
			return out, err
		}
		// The healthy case first: install works in a plain repository and
		// keeps the previous file as a regular backup, so that the
		// refusals below are refusals, not a broken install.
		t.Run(name+"/plain repository", func(t *testing.T) {
			t.Parallel()
			repo, home := t.TempDir(), t.TempDir()
			settings, _ := a.Path("project", home, repo, "hookwire", nil)
			write(t, settings, "{}\n")
			if out, err := run(t, repo, home); err != nil {
				t.Fatalf("install: %v\n%s", err, out)
			}
			if b, err := os.ReadFile(settings + ".hookwire.bak"); err != nil || string(b) != "{}\n" {
				t.Errorf("backup: %q, %v", b, err)
			}
			if out, err := run(t, repo, home); err != nil { // an install again: the backup is replaced
				t.Fatalf("install again: %v\n%s", err, out)
			}
		})
		for _, p := range plants {
			t.Run(name+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				if p.asRoot && os.Geteuid() != 0 {
					t.Skip("needs root, to make a file another uid's")
				}
				repo, home := t.TempDir(), t.TempDir()
				victim := filepath.Join(t.TempDir(), "authorized_keys")
				write(t, victim, victimText)
				settings, _ := a.Path("project", home, repo, "hookwire", nil)
				if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
					t.Fatal(err)
				}
				p.plant(t, repo, settings, victim)
				before := tree(t, repo)
				out, err := run(t, repo, home)
				if err == nil {
					t.Errorf("install exited 0:\n%s", out)
				}
				if !bytes.Contains(out, []byte(p.why)) {
					t.Errorf("install does not say %q:\n%s", p.why, out)
				}
				if b, _ := os.ReadFile(victim); string(b) != victimText {
					t.Errorf("the user's file was written: %q", b)
				}
				if entries, _ := os.ReadDir(filepath.Dir(victim)); len(entries) != 1 {
					t.Errorf("files appeared beside the user's: %v", entries)
				}
				if after := tree(t, repo); after != before {
					t.Errorf("the repository changed:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// tree lists what is in dir without following links: names, types,
// sizes.
func tree(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		size := fi.Size()
		if fi.IsDir() {
			size = 0
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + fi.Mode().String() + " " + strings.Repeat("#", int(min(size, 64))) + "; ")
		return nil
	})
	return b.String()
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, to, at string) {
	t.Helper()
	if err := os.Symlink(to, at); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHostileDebugLog plants, at the debug log's path, what another user
// who got there first could (earlier versions suggested
// PULSE_LOG=/tmp/hookwire.log): a FIFO with or without a reader, a link to a
// file of the user's, a file of theirs that anyone may read. Every binary
// still exits 0, silent, within its deadline, delivers the event, and
// writes nothing there.
func TestHostileDebugLog(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	type plant struct {
		name   string
		asRoot bool
		// plant prepares path and returns a check of what it holds after.
		plant func(t *testing.T, path string) (after func(t *testing.T))
	}
	plants := []plant{
		{name: "FIFO", plant: func(t *testing.T, path string) func(*testing.T) {
			mkfifo(t, path)
			return func(*testing.T) {}
		}},
		{name: "FIFO with a reader", plant: func(t *testing.T, path string) func(*testing.T) {
			mkfifo(t, path)
			r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return func(t *testing.T) {
				if n, _ := r.Read(make([]byte, 1)); n != 0 {
					t.Errorf("the reader got the log")
				}
			}
		}},
		{name: "link to a file of the user's", plant: func(t *testing.T, path string) func(*testing.T) {
			victim := filepath.Join(t.TempDir(), ".bashrc")
			write(t, victim, "keep\n")
			symlink(t, victim, path)
			return func(t *testing.T) {
				if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
					t.Errorf("the user's file was written: %q", b)
				}
			}
		}},
		{name: "another user's file", asRoot: true, plant: func(t *testing.T, path string) func(*testing.T) {
			write(t, path, "")
			os.Chmod(path, 0o666)
			if err := os.Chown(path, otherUID, otherUID); err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T) {
				if fi, _ := os.Stat(path); fi.Size() != 0 {
					t.Errorf("another user's file holds our log (%d bytes)", fi.Size())
				}
			}
		}},
	}
	for name, h := range hostileTargets {
		for _, p := range plants {
			t.Run(name+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				if p.asRoot && os.Geteuid() != 0 {
					t.Skip("needs root, to make a file another uid's")
				}
				dir := t.TempDir()
				log := filepath.Join(t.TempDir(), "hookwire.log") // not sticky: protected_symlinks plays no part
				after := p.plant(t, log)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, filepath.Join(bin, name), h.args...)
				cmd.Env = append(append(baseEnv(dir), h.setup(t, dir, "ok")...), hook.EnvLog+"="+log)
				cmd.Stdin = strings.NewReader(goodPayload)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				start := time.Now()
				err := cmd.Run()
				took := time.Since(start)
				if err != nil {
					t.Errorf("exit: %v", err)
				}
				if stdout.Len()+stderr.Len() > 0 {
					t.Errorf("stdout %q, stderr %q", stdout.Bytes(), stderr.Bytes())
				}
				if took > hook.Budget+margin {
					t.Errorf("took %v, deadline %v", took, hook.Budget)
				}
				if h.delivered(dir) == 0 {
					t.Errorf("the event was lost")
				}
				after(t)
			})
		}
	}
}

// TestForeignListener puts another user's listener on the port Trail Boss's
// daemon would use (127.0.0.1:4000 for everyone on the machine: whoever
// starts first has it). The hook refuses to send to it, exits 0, silent,
// says why in its debug log, and the listener receives nothing. Coral's API
// goes through the same client (httpsend), and so the same check.
func TestForeignListener(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	addr, received := testkit.ForeignListener(t, otherUID)
	dir := t.TempDir()
	log := filepath.Join(dir, "debug.log")
	cmd := exec.Command(filepath.Join(bin, "trailboss-hook"), "Stop")
	cmd.Env = append(baseEnv(dir), "TRAILBOSS_URL=http://"+addr, "TMUX_PANE=%1",
		"CLAUDE_CODE_SESSION_ID=d63ac083-c016-4a5e-9d4f-0d0b1f7e2a11", hook.EnvLog+"="+log)
	cmd.Stdin = strings.NewReader(goodPayload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("exit: %v", err)
	}
	if stdout.Len()+stderr.Len() > 0 {
		t.Errorf("stdout %q, stderr %q", stdout.Bytes(), stderr.Bytes())
	}
	if got := received(); len(got) > 0 {
		t.Errorf("another user's listener received:\n%s", got)
	}
	b, _ := os.ReadFile(log)
	if !bytes.Contains(b, []byte("served by another user (uid 4242")) {
		t.Errorf("the debug log does not say why:\n%s", b)
	}
}

// TestSquattedStateDir: without XDG_RUNTIME_DIR, another user creates the
// state directory's predictable name in the temp directory first (a link;
// as root, also a directory chowned to another uid). The hooks still keep
// their state (in the user's cache directory), and doctor names the
// squatter.
func TestSquattedStateDir(t *testing.T) {
	t.Parallel()
	bin, err := testkit.BuildSuite(".")
	if err != nil {
		t.Fatal(err)
	}
	squats := map[string]func(t *testing.T, path string){
		"link": func(t *testing.T, path string) { symlink(t, t.TempDir(), path) },
		"another user's directory": func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root, to make a directory another uid's")
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(path, otherUID, otherUID); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, squat := range squats {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, tmp := t.TempDir(), t.TempDir()
			squat(t, filepath.Join(tmp, "hookwire-"+strconv.Itoa(os.Getuid())))
			env := append(baseEnv(dir), "XDG_RUNTIME_DIR=", "TMPDIR="+tmp)
			cmd := exec.Command(filepath.Join(bin, "trailboss-hook"), "Stop")
			cmd.Env = append(env, trailbossTarget(t, dir, "ok")...)
			cmd.Stdin = strings.NewReader(goodPayload)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("hook: %v %q", err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, ".cache", "hookwire", "trailboss-hook")); err != nil {
				t.Errorf("no state kept: %v", err)
			}
			cmd = exec.Command(filepath.Join(bin, "nb-hook"), "doctor")
			cmd.Env = env
			out, _ := cmd.CombinedOutput()
			want := "is taken by a symbolic link"
			if name != "link" {
				want = "is taken by uid 4242"
			}
			if !bytes.Contains(out, []byte(want)) || !bytes.Contains(out, []byte("ok state directory "+filepath.Join(dir, ".cache", "hookwire", "nb-hook"))) {
				t.Errorf("doctor does not say %q and where state is:\n%s", want, out)
			}
		})
	}
}
