package vpet

// EnvTTY names the agent's terminal when the hook cannot find it, or is told
// not to look: "none" reports none. A wrapper that knows better (a tmux pane's
// tty) can set it.
const EnvTTY = "VPET_NOTIFY_TTY"

// TTY is the agent's terminal for transport.tty: agentica sends
// os.ttyname(stdin), but a hook's stdin is a pipe, so it is the controlling
// terminal that the hook shares with the agent that started it. "" when
// there is none (a GUI agent, a CI job) or it cannot be named.
func TTY(getenv func(string) string) string {
	switch v := getenv(EnvTTY); v {
	case "none":
		return ""
	case "":
		return controllingTTY()
	default:
		return v
	}
}
