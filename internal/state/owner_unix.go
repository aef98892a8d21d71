//go:build !windows

package state

import (
	"io/fs"
	"os"
	"strconv"

	"github.com/hookwire/hookwire/internal/safefile"
)

// userTag names the state directory in the temp directory: the uid.
func userTag() string { return strconv.Itoa(ownUID()) }

// otherOwner names the owner of dir (its Lstat fi) when it is another user.
func otherOwner(dir string, fi fs.FileInfo) (string, bool) {
	if fi == nil {
		var err error
		if fi, err = os.Lstat(dir); err != nil {
			return "", false
		}
	}
	if uid, ok := safefile.Owner(fi); ok && uid != ownUID() {
		return "uid " + strconv.Itoa(uid), true
	}
	return "", false
}
