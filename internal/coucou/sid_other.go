//go:build !windows

package coucou

func userSID() string { return "" }
