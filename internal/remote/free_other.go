//go:build !unix

package remote

// FreeBytes: the relay runs on Unix only (ErrUnsupported).
func FreeBytes(string) (uint64, bool) { return 0, false }
