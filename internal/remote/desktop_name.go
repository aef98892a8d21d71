package remote

import "strings"

// MaxName bounds a host's name on the desktop's surfaces.
const MaxName = 24

// HostName is the name a host's sessions carry on this desktop: the ssh
// alias as given (without a user@ or a :port), lowercased, every run of
// characters outside [a-z0-9-] one dash, at most MaxName characters; ""
// when nothing is left. A dot never survives: Pulse's slot is
// <host>.<session>.
func HostName(alias string) string {
	if i := strings.LastIndexByte(alias, '@'); i >= 0 {
		alias = alias[i+1:]
	}
	if i := strings.IndexByte(alias, ':'); i >= 0 && !strings.HasPrefix(alias, "[") {
		alias = alias[:i]
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(alias) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= MaxName {
			break
		}
	}
	return strings.Trim(b.String()[:min(b.Len(), MaxName)], "-")
}
