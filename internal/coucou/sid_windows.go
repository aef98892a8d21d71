package coucou

import "golang.org/x/sys/windows"

// userSID is the current user's security identifier, which names the app's pipe.
func userSID() string {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil || user.User.Sid == nil {
		return ""
	}
	return user.User.Sid.String()
}
