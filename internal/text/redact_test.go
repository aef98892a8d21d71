package text

import (
	"strings"
	"testing"
)

// credentials are the shapes a tool preview, an error or a URL carries a
// secret in; each secret is the word SECRET followed by enough characters to
// look like one, and none may survive Redact.
var credentials = []struct{ in, want string }{
	{"curl -H 'Authorization: Bearer sk-SECRETabcdef0123456789' https://api", "curl -H 'Authorization: Bearer <redacted>' https://api"},
	{"Authorization: Basic dXNlcjpTRUNSRVQ=", "Authorization: Basic <redacted>"},
	{"authorization: token SECRETghp0123456789abcdef", "authorization: token <redacted>"},
	{"git clone https://user:ghp_SECRET0123456789abcdefABCDEF@github.com/o/r", "git clone https://<redacted>@github.com/o/r"},
	{"postgres://app:SECRETpw@db:5432/x", "postgres://<redacted>@db:5432/x"},
	{"GET https://h/cb?code=1&access_token=SECRETxyz&x=2", "GET https://h/cb?code=1&access_token=<redacted>&x=2"},
	{"https://h/?api_key=SECRETxyz", "https://h/?api_key=<redacted>"},
	{"mysql --password=SECRETpw -u root", "mysql --password=<redacted> -u root"},
	{"tool --token SECRETtok --verbose", "tool --token <redacted> --verbose"},
	{"tool --api-key=SECRET123", "tool --api-key=<redacted>"},
	{"curl -u me:SECRETpw https://x", "curl -u <redacted> https://x"},
	{"curl --user=me:SECRETpw https://x", "curl --user=<redacted> https://x"},
	{"AWS_SECRET_ACCESS_KEY=SECRETwJalrXUtnFEMI/K7MDENG aws s3 ls", "AWS_SECRET_ACCESS_KEY=<redacted> aws s3 ls"},
	{"export GITHUB_TOKEN=SECRETabc; make", "export GITHUB_TOKEN=<redacted>; make"},
	{"DB_PASSWORD='SECRET pw' ./run", "DB_PASSWORD=<redacted> ./run"},
	{`{"password": "SECRETpw", "user": "me"}`, `{"password": "<redacted>", "user": "me"}`},
	{"echo ghp_SECRET0123456789abcdefABCDEF0123", "echo <redacted>"},
	{"key github_pat_11SECRET0123456789_abcdefABCDEF", "key <redacted>"},
	{"OPENAI sk-proj-SECRET0123456789abcdef", "OPENAI <redacted>"},
	{"sk-ant-api03-SECRET0123456789abcdef-xyz", "<redacted>"},
	{"slack xoxb-1234-SECRET5678-abcdef", "slack <redacted>"},
	{"id AKIASECRET0123456789 ok", "id <redacted> ok"},
	{"gitlab glpat-SECRET0123456789abcd", "gitlab <redacted>"},
	{"jwt eyJhbGciOiJIUzI1NiJ9.eyJTRUNSRVQiOjF9.SECRETsig_-x", "jwt <redacted>"},
	{"-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----", "<redacted private key>"},
}

func TestRedactCredentials(t *testing.T) {
	for _, tc := range credentials {
		got := Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
		if strings.Count(got, "SECRET") > strings.Count(tc.want, "SECRET") {
			t.Errorf("Redact(%q) kept the secret: %q", tc.in, got)
		}
	}
}

// What holds no credential is left alone, byte for byte.
func TestRedactLeavesTheRest(t *testing.T) {
	for _, s := range []string{
		"", "go test ./...", "git push origin main", "https://github.com/o/r/pull/3",
		"ls -la ~/sk-notes", "skip the rest", "a token of thanks", "--password-file /run/pw",
		"echo $GITHUB_TOKEN", "PATH=/usr/bin make", "mailto:me@example.com",
		"Bearer", "日本語のテキスト", "npm run build -- --watch",
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
}
