package coucou

import (
	"fmt"
	"os"
	"path/filepath"
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

// SocketPath is where the app listens: COUCOU_SOCKET; on Linux
// $XDG_RUNTIME_DIR/coucou.sock, else coucou-<uid>.sock in the temp
// directory; on macOS the GitHub build's socket, else the App Store
// build's container; on Windows the pipe named after the user's SID.
func SocketPath(w Where) string {
	if p := w.Getenv(EnvSocket); p != "" {
		return p
	}
	switch w.GOOS {
	case "darwin":
		home := w.Getenv("HOME")
		github := filepath.Join(home, "Library", "Application Support", "NotchBuddy", "nb.sock")
		appStore := filepath.Join(home, "Library", "Containers", "fr.louisraille.Coucou", "Data", "nb.sock")
		if !w.Exists(github) && w.Exists(appStore) {
			return appStore
		}
		return github
	case "windows":
		name := w.SID
		if name == "" {
			name = w.Getenv("USERNAME")
		}
		if name == "" {
			name = "user"
		}
		return `\\.\pipe\coucou-` + name
	}
	fallback := filepath.Join(w.TmpDir, fmt.Sprintf("coucou-%d.sock", w.UID))
	if xdg := w.Getenv("XDG_RUNTIME_DIR"); xdg != "" {
		if p := filepath.Join(xdg, "coucou.sock"); w.Exists(p) || !w.Exists(fallback) {
			return p
		}
	}
	return fallback
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
