package agent

import "runtime"

// UserHome is the user's home directory as os.UserHomeDir finds it, from
// getenv (a hook's environment, or a test's): HOME, and on Windows, which
// does not set HOME, the user's profile (USERPROFILE). Where an agent or a
// surface keeps its files under the home directory, this is the one rule.
func UserHome(getenv func(string) string) string {
	if runtime.GOOS == "windows" {
		return getenv("USERPROFILE")
	}
	return getenv("HOME")
}
