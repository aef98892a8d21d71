package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Leftovers are the processes still running a binary of binDir with
// XDG_RUNTIME_DIR=runDir in their environment (a script's hooks, and what
// they started: finishers, couriers), each as "PID ARGV", but for
// `hookwire remote` and `hookwire relay`, which are no hooks and run until
// stopped. Zombies are among them while their parent, of the same
// runDir, lives.
func Leftovers(binDir, runDir string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte("XDG_RUNTIME_DIR=" + runDir)
	var out []string
	for _, e := range entries {
		dir := filepath.Join("/proc", e.Name())
		exe, err := os.Readlink(filepath.Join(dir, "exe"))
		stat, _ := os.ReadFile(filepath.Join(dir, "stat"))
		zombie := isZombie(stat)
		if !zombie && (err != nil || filepath.Dir(exe) != binDir) {
			continue
		}
		// A zombie's environment is gone: its parent's says whose it is
		// (another script's agent may be slow to reap its own).
		envOf := dir
		if zombie {
			envOf = filepath.Join("/proc", ppidField(stat))
		}
		environ, _ := os.ReadFile(filepath.Join(envOf, "environ"))
		if !bytes.Contains(append(environ, 0), append(want, 0)) {
			continue
		}
		if zombie && !strings.HasPrefix(commOf(stat), "hookwire") && !isSuiteName(commOf(stat)) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		if args := strings.Split(string(cmdline), "\x00"); !zombie && len(args) > 1 && (args[1] == "remote" || args[1] == "relay") {
			continue // not a hook: `hookwire remote` runs until it is stopped, and starts its relay
		}
		what := strings.ReplaceAll(strings.TrimSuffix(string(cmdline), "\x00"), "\x00", " ")
		if zombie {
			what = "[" + commOf(stat) + "] <defunct>, parent " + ppidField(stat)
		}
		out = append(out, fmt.Sprintf("%s %s", e.Name(), what))
	}
	return out
}

// Settle waits until Leftovers(binDir, runDir) is empty, and nothing waits
// to run a binary of binDir either (chained), and returns nothing; or
// returns what is still there (each with its age) as soon as one of them has
// run longer than within, counted from its own start or from the call,
// whichever is later. Each process is held to its own budget rather
// than all of them to one clock: an agent's plugin hands the events still
// queued at its exit to a chain (plugin_queue.js), each process starting
// when the one before has ended, so the last may rightly start seconds after
// the agent is gone. A chain that never drains is cut off after
// settleChains × within.
func Settle(binDir, runDir string, within time.Duration) []string {
	call := time.Now()
	for ; ; time.Sleep(20 * time.Millisecond) {
		left := Leftovers(binDir, runDir)
		queued := chained(binDir, runDir)
		if len(left) == 0 && len(queued) == 0 {
			return nil
		}
		now := time.Now()
		if now.Sub(call) > settleChains*within {
			return append(left, queued...)
		}
		over := false
		var aged []string
		for _, l := range left {
			pid, _, _ := strings.Cut(l, " ")
			age, ok := processAge(pid)
			if !ok {
				continue // ended since Leftovers saw it
			}
			if min(age, now.Sub(call)) > within {
				over = true
			}
			aged = append(aged, fmt.Sprintf("%s (running for %v)", l, age.Round(time.Millisecond)))
		}
		if over {
			return aged
		}
	}
}

// chained are the processes that wait to run a binary of binDir for
// runDir (plugin_queue.js's sh, in the chain at the agent's exit): not the
// binary yet, but a path in binDir among their arguments.
func chained(binDir, runDir string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte("XDG_RUNTIME_DIR=" + runDir + "\x00")
	var out []string
	for _, e := range entries {
		dir := filepath.Join("/proc", e.Name())
		exe, err := os.Readlink(filepath.Join(dir, "exe"))
		if err != nil || filepath.Dir(exe) == binDir {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		if !bytes.Contains(cmdline, []byte("\x00"+binDir+"/")) {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join(dir, "environ"))
		if !bytes.Contains(append(environ, 0), want) {
			continue
		}
		what := strings.ReplaceAll(strings.TrimSuffix(string(cmdline), "\x00"), "\x00", " ")
		out = append(out, fmt.Sprintf("%s %s (waits to run it)", e.Name(), what))
	}
	return out
}

// settleChains bounds how many budgets in a row Settle waits for processes
// that each keep to theirs.
const settleChains = 8

// processAge is how long the process pid has run, from its stat line's
// start time (field 22, in clock ticks since boot: USER_HZ, 100 on every
// Linux this runs on) and the system's uptime.
func processAge(pid string) (time.Duration, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	up, err2 := os.ReadFile("/proc/uptime")
	f := statFields(stat)
	if err != nil || err2 != nil || len(f) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	upFields := strings.Fields(string(up))
	if err != nil || len(upFields) == 0 {
		return 0, false
	}
	uptime, err := strconv.ParseFloat(upFields[0], 64)
	if err != nil {
		return 0, false
	}
	const userHZ = 100
	return time.Duration(uptime*float64(time.Second)) - time.Duration(ticks)*time.Second/userHZ, true
}

// The stat line's fields after the command (which may hold spaces and
// parentheses): state, then the parent's pid.
func statFields(stat []byte) []string {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(stat[i+1:]))
}

func isZombie(stat []byte) bool {
	f := statFields(stat)
	return len(f) > 0 && f[0] == "Z"
}

func ppidField(stat []byte) string {
	if f := statFields(stat); len(f) > 1 {
		return f[1]
	}
	return "?"
}

func commOf(stat []byte) string {
	i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if i < 0 || j < i {
		return ""
	}
	return string(stat[i+1 : j])
}

// isSuiteName: a process name (at most 15 bytes) of one of the suite's
// binaries.
func isSuiteName(comm string) bool {
	for _, b := range []string{"pulse-emit", "pulse-claude", "nb-hook", "trailboss-hook", "vpet-notify", "coral-pulse"} {
		if comm == b {
			return true
		}
	}
	return false
}
