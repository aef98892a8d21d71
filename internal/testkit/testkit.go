// Package testkit holds the fake targets and testscript commands that the
// golden tests are built from. Every fake records exactly what arrived, so a
// script can compare it with a golden file, and every fake has modes that
// misbehave (error replies, garbage, hanging) for the fail-open tests.
//
// The commands are documented for script authors in testdata/script/README.md.
package testkit

import (
	"github.com/rogpeppe/go-internal/testscript"
)

// Commands returns the custom testscript commands.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"fake-noctalia":  cmdFakeNoctalia,
		"fake-sock":      cmdFakeSock,
		"fake-pipe":      cmdFakePipe,
		"fake-http":      cmdFakeHTTP,
		"fake-http-unix": cmdFakeHTTPUnix,
		"fake-mode":      cmdFakeMode,
		"fake-stop":      cmdFakeStop,
		"got":            cmdGot,
		"cmpjson":        cmdCmpJSON,
		"dead":           cmdDead,
		"append":         cmdAppend,
		"sleep":          cmdSleep,
		"claude-session": cmdClaudeSession,
		"fake-tmux":      cmdFakeTmux,
		"escaped":        cmdEscaped,
		"cmphttp":        cmdCmpHTTP,
		"env-file":       cmdEnvFile,
		"islink":         cmdIsLink,
		"sshd":           cmdSSHD, // the remote tests' real OpenSSH server (sshd_linux.go)

		// The modelled Trail Boss daemon (trailboss.go).
		"fake-trailboss":      cmdFakeTrailBoss,
		"trailboss-queue":     cmdTrailBossQueue,
		"trailboss-sessions":  cmdTrailBossSessions,
		"trailboss-reconcile": cmdTrailBossReconcile,
		"repeat":              cmdRepeat,
		"count":               cmdCount,
	}
}
