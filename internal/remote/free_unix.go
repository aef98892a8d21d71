//go:build unix

package remote

import "golang.org/x/sys/unix"

// FreeBytes is the space left to this user on dir's filesystem, for doctor.
func FreeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
