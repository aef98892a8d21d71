package testkit

import (
	"github.com/hookwire/hookwire/internal/testkit/afunix"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptT is the key under which KeepT keeps a script's T.
type scriptT struct{}

// KeepT keeps the script's T in its Env (a Setup step), so that the suite's
// commands can skip a script that meets a limitation of the system, as the
// skip command does.
func KeepT(env *testscript.Env) { env.Values[scriptT{}] = env.T() }

// skipScript skips the script, saying why (or fails it, where KeepT was not
// called).
func skipScript(ts *testscript.TestScript, why string) {
	if t, ok := ts.Value(scriptT{}).(testscript.T); ok {
		t.Skip(why)
	}
	ts.Fatalf("%s", why)
}

// needUnixSockets skips a script that listens on a Unix socket where there
// are none (Wine), naming why: afunix.
func needUnixSockets(ts *testscript.TestScript) {
	if err := afunix.Err(); err != nil {
		skipScript(ts, afunix.Missing+": "+err.Error())
	}
}
