package text

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redacted stands for a credential that was removed.
const Redacted = "<redacted>"

// redactions are the credential shapes Redact removes, in the order they are
// applied: a URL's userinfo before the tokens it may hold, a header's scheme
// kept and its value dropped, a name kept and its value dropped.
// Each is compiled the first time a text holds one of its hints: a hook
// that never redacts never pays, and one whose text holds only "=" pays for
// the one expression that "=" calls for (compiling all ten took a hook
// about 1M instructions, a third of its own work).
var redactions = []redaction{
	// A private key, whole.
	{lazy(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`), "<redacted private key>", []string{"private key"}},
	// scheme://user:password@host and scheme://token@host.
	{lazy(`\b([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'"]+@`), "${1}" + Redacted + "@", []string{"://"}},
	// Authorization: Bearer …, Basic …, token ….
	{lazy(`(?i)\b(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot|digest)\s+)[^\s'",;]+`), "${1}" + Redacted, []string{"authorization"}},
	{lazy(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}" + Redacted, []string{"bearer"}},
	// ?access_token=…&api_key=… in a URL.
	{lazy(`(?i)([?&;](?:access_token|refresh_token|id_token|token|api_?key|key|secret|client_secret|password|passwd|pwd|auth|sig|signature)=)[^&\s#'"]+`), "${1}" + Redacted, []string{"="}},
	// --password=…, --token …
	{lazy(`(?i)((?:^|\s)--?(?:password|passwd|pass|token|secret|api-?key|access-?token|auth-?token|client-?secret)(?:=|\s+))("[^"]*"|'[^']*'|[^\s'"]+)`), "${1}" + Redacted, []string{"pass", "token", "secret", "key"}},
	// curl -u user:password, --user=user:password
	{lazy(`((?:^|\s)(?:-u|--user)(?:=|\s+))[^\s:'"]+:[^\s'"]+`), "${1}" + Redacted, []string{"-u", "--user"}},
	// AWS_SECRET_ACCESS_KEY=…, GITHUB_TOKEN=…, DB_PASSWORD='…'
	{lazy(`(?i)\b([A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|access_key|private_key|credentials?)[A-Za-z0-9_]*=)("[^"]*"|'[^']*'|[^\s'";&|]+)`), "${1}" + Redacted, []string{"secret", "token", "passw", "key", "credential"}},
	// "password": "…" in JSON.
	{lazy(`(?i)("[a-z0-9_-]*(?:password|passwd|secret|token|api_?key|access_key|credentials?)"\s*:\s*")(?:[^"\\]|\\.)*"`), "${1}" + Redacted + `"`, []string{"passw", "secret", "token", "key", "credential"}},
	// Tokens known by their shape, wherever they stand.
	{lazy(`\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)`), Redacted,
		[]string{"gh", "github_pat_", "sk-", "xox", "akia", "glpat-", "aiza", "npm_", "eyj"}},
}

// lazy compiles expr on first use.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

type redaction struct {
	re   func() *regexp.Regexp
	with string
	// hints are words, lower case, one of which a text must contain for
	// the expression to be worth running: most text contains none.
	hints []string
}

// Redact replaces the credentials in s (bearer tokens, a URL's userinfo,
// access_token= and the like in a query, --password=… flags, *_SECRET…=
// assignments, "password": "…" fields, tokens known by their shape, private
// keys) with Redacted, and leaves everything else as it was. It is for text
// that leaves the terminal for a surface (a pet, a dashboard, a queue) or the
// debug log; it is a net for the common shapes, not a guarantee.
func Redact(s string) string {
	if s == "" {
		return s
	}
	lower := strings.ToLower(s)
	for _, r := range redactions {
		if slices.ContainsFunc(r.hints, func(h string) bool { return strings.Contains(lower, h) }) {
			s = r.re().ReplaceAllString(s, r.with)
			lower = strings.ToLower(s)
		}
	}
	return s
}

// RedactClip is Clip(Redact(s), max) in bounded time: s is first cut well
// beyond what Clip keeps, so that a huge input costs no more than a short one
// and a credential that the cut goes through is still long enough to be
// recognized.
func RedactClip(s string, max int) string {
	if max <= 0 {
		return ""
	}
	return Clip(RedactFor(s, max), max)
}

// RedactFor is Redact(s) for a text about to be clipped to max (by any
// wire's own rule), in bounded time: s is first cut well beyond max.
func RedactFor(s string, max int) string {
	if limit := 4*max + 1024; len(s) > limit {
		s = ClipBytes(s, limit)
	}
	return Redact(s)
}
