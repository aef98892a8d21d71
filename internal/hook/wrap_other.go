//go:build !unix

package hook

import "os"

// forwarded: a console's Ctrl+C reaches every process attached to it, the
// command included; wrap only has to survive it.
var forwarded = []os.Signal{os.Interrupt}

var interrupt os.Signal // no signal ends a Windows process: never set

func forward(*os.Process, os.Signal) {}

func exitStatus(ps *os.ProcessState) (int, os.Signal) { return ps.ExitCode(), nil }

func signalName(s os.Signal) string { return s.String() }

func dieOf(os.Signal) {}

func background() {}
