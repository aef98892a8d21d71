package coucou

import (
	"fmt"
	"os"
	"path"
)

// EnvSocket overrides where the app listens.
const EnvSocket = "COUCOU_SOCKET"

// Where is what SocketPath needs to know about the machine.
type Where struct {
	GOOS   string
	Getenv func(string) string
	Exists func(path string) bool
	UID    int
	TmpDir string
	// SID is the user's security identifier on Windows ("" if unknown).
	SID string
}

// SocketPath is where the app listens: COUCOU_SOCKET; on Linux the runtime
// directory's socket (Looking); on macOS the GitHub build's socket, else the
// App Store build's container; on Windows the pipe named after the user's
// SID.
func SocketPath(w Where) string {
	p, _ := Looking(w)
	return p
}

// Looking is SocketPath and, for doctor, which of the places it is, in words.
// The paths of macOS and Linux are made with slashes (package path, not
// filepath): they are w.GOOS's, whatever system computes them.
//
// Linux: the app listens on $XDG_RUNTIME_DIR/coucou.sock, else
// /run/user/<uid>/coucou.sock, and nowhere else (platform::relay_socket_path,
// docs/reference/coucou-gemini-antigravity-codex.md §1.1). Only its older
// relay and app put the socket in the temp directory, and only without
// $XDG_RUNTIME_DIR: coucou-<uid>.sock there is taken when it exists and the
// current socket does not, never in place of a runtime directory's.
func Looking(w Where) (where, why string) {
	if p := w.Getenv(EnvSocket); p != "" {
		return p, "from " + EnvSocket
	}
	switch w.GOOS {
	case "darwin":
		home := w.Getenv("HOME")
		github := path.Join(home, "Library", "Application Support", "NotchBuddy", "nb.sock")
		appStore := path.Join(home, "Library", "Containers", "fr.louisraille.Coucou", "Data", "nb.sock")
		if !w.Exists(github) && w.Exists(appStore) {
			return appStore, "the App Store build's, as the GitHub build's " + github + " is not there"
		}
		return github, "the GitHub build's (else the App Store build's " + appStore + ")"
	case "windows":
		name := w.SID
		if name == "" {
			name = w.Getenv("USERNAME")
		}
		if name == "" {
			name = "user"
		}
		return `\\.\pipe\coucou-` + name, "the pipe named after your account"
	}
	// As the app reads it: a relative value is no runtime directory.
	if xdg := w.Getenv("XDG_RUNTIME_DIR"); path.IsAbs(xdg) {
		return path.Join(xdg, "coucou.sock"), "$XDG_RUNTIME_DIR/coucou.sock"
	}
	current := fmt.Sprintf("/run/user/%d/coucou.sock", w.UID)
	legacy := path.Join(w.TmpDir, fmt.Sprintf("coucou-%d.sock", w.UID))
	if !w.Exists(current) && w.Exists(legacy) {
		return legacy, "an older Coucou's, in the temp directory, as there is no $XDG_RUNTIME_DIR and no " + current
	}
	return current, "/run/user/<uid>/coucou.sock, as there is no $XDG_RUNTIME_DIR (an older Coucou's " + legacy + " is not there)"
}

func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
