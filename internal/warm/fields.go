package warm

// splitArgs splits a command line as /proc/self/cmdline holds it: argv[0],
// then the arguments, each NUL-terminated, and how many there are.
func splitArgs(cmdline []byte) (argv0 string, args []byte, nargs int) {
	for i, c := range cmdline {
		if c == 0 {
			argv0, args = string(cmdline[:i]), cmdline[i+1:]
			break
		}
	}
	for _, c := range args {
		if c == 0 {
			nargs++
		}
	}
	return argv0, args, nargs
}

// fields splits NUL-terminated fields.
func fields(b []byte) []string {
	var out []string
	for start, i := 0, 0; i < len(b); i++ {
		if b[i] == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	return out
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func trimSlash(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// lookup finds name's value in environ (NAME=value entries, each ended by a
// NUL, as /proc/self/environ holds them): syscall.Getenv would copy the
// whole environment into a map first.
func lookup(environ []byte, name string) (string, bool) {
	for start, i := 0, 0; i < len(environ); i++ {
		if environ[i] != 0 {
			continue
		}
		kv := environ[start:i]
		start = i + 1
		if len(kv) > len(name) && kv[len(name)] == '=' && string(kv[:len(name)]) == name {
			return string(kv[len(name)+1:]), true
		}
	}
	return "", false
}
