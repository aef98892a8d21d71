package pulse

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tidwall/gjson"
)

// procRoot is /proc; tests point it elsewhere.
var procRoot = "/proc"

// maxHops bounds the walk up the process tree: Claude Code runs a hook as
// `sh -c`, so the chain is pulse-claude → sh → claude, plus wrappers.
const maxHops = 8

// claudePID finds the Claude Code process that owns session: walking up from
// our parent, the first process whose <config>/sessions/<pid>.json names
// exactly this session id. That file is undocumented, hence the exact match.
// It returns 0 when there is none (or no /proc to walk).
func claudePID(session, configDir string) int {
	pid := os.Getppid()
	for range maxHops {
		if pid <= 1 {
			return 0
		}
		if ownsSession(configDir, pid, session) {
			return pid
		}
		pid = parentOf(pid)
	}
	return 0
}

// ownsSession reports whether <config>/sessions/<pid>.json names session.
func ownsSession(configDir string, pid int, session string) bool {
	b, err := os.ReadFile(filepath.Join(configDir, "sessions", strconv.Itoa(pid)+".json"))
	return err == nil && session != "" && gjson.GetBytes(b, "sessionId").String() == session
}

// parentOf reads the parent pid from /proc/<pid>/stat. The command name in
// field 2 may hold spaces and parentheses, so fields are counted from the
// last ')'.
func parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, …
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}

// claudeConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude; "" when neither is known.
func claudeConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".claude")
	}
	return ""
}
