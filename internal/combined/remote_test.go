package combined

import (
	"strings"
	"testing"
)

// On macOS the service is a launch agent, bootstrapped into the user's GUI
// domain.
func TestRemoteServiceDarwin(t *testing.T) {
	Executable = func() (string, error) { return "/opt/hw & co/hookwire", nil }
	env := map[string]string{"HOME": "/Users/me", "PATH": "/usr/bin:/opt/homebrew/bin", "VPET_NOTIFY_TOKEN": "s3cret"}
	s, err := newService("darwin", "me@DevBox", "", DefaultRelay, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if s.file != "/Users/me/Library/LaunchAgents/dev.hookwire.remote.devbox.plist" {
		t.Errorf("file %s", s.file)
	}
	for _, want := range []string{
		"<string>dev.hookwire.remote.devbox</string>",
		"<string>/opt/hw &amp; co/hookwire</string>\n\t\t<string>remote</string>\n\t\t<string>--name</string>\n\t\t<string>devbox</string>\n\t\t<string>me@DevBox</string>",
		"<key>PATH</key>\n\t\t<string>/usr/bin:/opt/homebrew/bin</string>",
		"<key>KeepAlive</key>\n\t<true/>",
		"/Users/me/Library/Logs/hookwire-remote-devbox.log",
	} {
		if !strings.Contains(s.text, want) {
			t.Errorf("the plist lacks %q:\n%s", want, s.text)
		}
	}
	if strings.Contains(s.text, "s3cret") {
		t.Error("a token in the plist")
	}
	if got := quoteCommand(s.start[0]); !strings.HasPrefix(got, "launchctl bootstrap gui/") || !strings.HasSuffix(got, " /Users/me/Library/LaunchAgents/dev.hookwire.remote.devbox.plist") {
		t.Errorf("start %s", got)
	}
	if got := quoteCommand(s.stop[0]); !strings.HasSuffix(got, "/dev.hookwire.remote.devbox") {
		t.Errorf("stop %s", got)
	}
	if _, err := newService("windows", "devbox", "", DefaultRelay, func(k string) string { return env[k] }); err == nil {
		t.Error("windows: a service")
	}
}

func TestSystemdQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      "plain",
		"a b":        `"a b"`,
		`say "hi"`:   `"say \"hi\""`,
		"100%":       "100%%",
		"$HOME/x":    "$$HOME/x",
		`back\slash`: `"back\\slash"`,
	} {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
