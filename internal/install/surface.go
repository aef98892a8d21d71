package install

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
