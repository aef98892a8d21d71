//go:build unix && !linux

package transport

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
