//go:build !windows

package testkit

import (
	"errors"
	"net"
)

var errNoPipes = errors.New("named pipes are Windows's")

func listenPipe(string) (net.Listener, error) { return nil, errNoPipes }

func coucouPipe() (string, error) { return "", errNoPipes }
