package install

import "runtime"

// A Surface is one status surface as a combined binary's setup and doctor
// see it: the name --surfaces gives it (its own binary's), what it
// installs, what doctor checks, and how setup finds it on this machine.
// Each surface's package says all of it, in its Surface function:
// nothing here knows a surface.
type Surface struct {
	Name  string // its binary: nb-hook
	Title string // for people: Coucou
	Spec  Spec
	Check Check
	Find  Find
	// NoWindows, for a surface with no Windows end, says why (and what a
	// user can set where something does work there): setup and doctor say
	// it on Windows when the surface is not found. Its hook costs nothing
	// there: it finds no target and exits at once.
	NoWindows string
}

// onWindowsHost: setup and doctor run on Windows. A variable for tests.
var onWindowsHost = runtime.GOOS == "windows"

// find is Find, saying on Windows why a surface without a Windows end is
// missing.
func (s Surface) find(getenv func(string) string) Presence {
	p := s.Find(getenv)
	if !p.Found && onWindowsHost && s.NoWindows != "" {
		p.Why = "no Windows end: " + s.NoWindows + " (" + p.Why + ")"
	}
	return p
}

// Doctor is doctor's look at the surface's target, as its own binary's
// doctor and hookwire's say it: Check, after, on Windows, why a surface with
// no Windows end is absent there.
func (s Surface) Doctor(getenv func(string) string) []Finding { return s.check(getenv) }

// check is Check, with the same word first on Windows.
func (s Surface) check(getenv func(string) string) []Finding {
	var out []Finding
	if onWindowsHost && s.NoWindows != "" {
		out = append(out, Finding{Status: Info, What: s.Title + " has no Windows end: " + s.NoWindows})
	}
	if s.Check != nil {
		out = append(out, s.Check(getenv)...)
	}
	return out
}

// Find looks for a surface on this machine: what it runs on, or what shows
// it was installed (a socket, a daemon answering, a data directory, a
// command on PATH). It must be quick: setup runs every surface's.
type Find func(getenv func(string) string) Presence

// Presence is what Find found: Found, and what says so, or what is missing
// (Why: "the socket /run/user/1000/coucou.sock", "noctalia is not on
// PATH").
type Presence struct {
	Found bool
	Why   string
}
