package state

import (
	"fmt"
	"io/fs"
	"sync"

	"golang.org/x/sys/windows"
)

// userTag names the state directory in the temp directory: the user's SID
// (Windows has no uid: os.Getuid is -1 there).
func userTag() string {
	if sid := ownSID(); sid != nil {
		return sid.String()
	}
	return "unknown"
}

// ownSID is this process's user, asked once.
var ownSID = sync.OnceValue(func() *windows.SID {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil || user.User.Sid == nil {
		return nil
	}
	sid, err := user.User.Sid.Copy()
	if err != nil {
		return nil
	}
	return sid
})

// otherOwner names the owner of dir when it is not this user, nor a group
// this user's token holds (an elevated administrator's files belong to
// BUILTIN\Administrators): a directory someone else made, to refuse.
func otherOwner(dir string, _ fs.FileInfo) (string, bool) {
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Sprintf("unknown (%v)", err), true
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return "unknown", true
	}
	own := ownSID()
	if own != nil && owner.Equals(own) {
		return "", false
	}
	if member, err := windows.GetCurrentProcessToken().IsMember(owner); err == nil && member {
		return "", false
	}
	return owner.String(), true
}
