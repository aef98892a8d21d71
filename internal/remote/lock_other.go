//go:build !unix

package remote

import "os"

// The relay is for Unix machines (Windows: WSL); SetUp is never true here.
func tryLock(*os.File) (bool, error) { return false, ErrUnsupported }

func unlock(*os.File) {}
