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
