package testkit

import (
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// listenPipe listens on a named pipe, as Coucou's Windows app does: its
// default security (the creator and the system).
func listenPipe(name string) (net.Listener, error) { return winio.ListenPipe(name, nil) }

// coucouPipe is the pipe Coucou's Windows app listens on, named after the
// user's SID: found here on its own, not by the code under test.
func coucouPipe() (string, error) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return `\\.\pipe\coucou-` + user.User.Sid.String(), nil
}
