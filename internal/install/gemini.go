package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/tidwall/gjson"

	"github.com/hookwire/hookwire/internal/hook"
)

// Gemini CLI (0.61) hands its hooks a redacted environment when
// security.environmentVariableRedaction.enabled is set, and always under
// GitHub Actions (GITHUB_SHA, or SURFACE=Github), where only a few
// variables survive (environmentSanitization.ts). A name that looks like a
// secret (TOKEN, KEY, SECRET, …) is stripped either way, and cannot be
// allowed; a hook's own env map is added after the redaction.

// geminiAlways are the variables its strict mode keeps.
var geminiAlways = []string{"PATH", "SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP",
	"USERPROFILE", "SYSTEMDRIVE", "HOME", "LANG", "SHELL", "TMPDIR", "USER", "LOGNAME", "TERM", "COLORTERM"}

var geminiSecretName = lazy(`(?i)TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT`)

// geminiKept sorts the binary's variables set here that Gemini CLI's
// redaction (on in data, or always under GitHub Actions) would keep from
// its hooks: lost (allowing them in the settings keeps them), blocked (the
// settings block them), secret (a name no setting can allow). on is false
// when nothing is redacted.
func (s Spec) geminiKept(data []byte, getenv func(string) string) (lost, blocked, secret []string, strict, on bool) {
	strict = getenv("GITHUB_SHA") != "" || getenv("SURFACE") == "Github"
	std, err := hujson.Standardize(append([]byte(nil), data...))
	if err != nil {
		return nil, nil, nil, strict, false
	}
	r := gjson.GetBytes(std, "security.environmentVariableRedaction")
	if !strict && !r.Get("enabled").Bool() {
		return nil, nil, nil, strict, false
	}
	upper := func(key string) []string {
		var out []string
		for _, v := range r.Get(key).Array() {
			out = append(out, strings.ToUpper(v.String()))
		}
		return out
	}
	allowed, blocks := upper("allowed"), upper("blocked")
	for _, v := range s.names() {
		if getenv(v) == "" || strings.HasPrefix(v, "GEMINI_CLI_") || slices.Contains(lost, v) || slices.Contains(blocked, v) || slices.Contains(secret, v) {
			continue
		}
		switch {
		case geminiSecretName().MatchString(v):
			secret = append(secret, v)
		case slices.Contains(blocks, v):
			blocked = append(blocked, v)
		case slices.Contains(allowed, v), slices.Contains(geminiAlways, v):
		case strict:
			lost = append(lost, v)
		}
	}
	return lost, blocked, secret, strict, true
}

// geminiRedaction says which of the binary's variables, set here, Gemini
// CLI would keep from its hooks, and how to keep them.
func (s Spec) geminiRedaction(path string, data []byte, getenv func(string) string) []Finding {
	lost, blocked, secret, strict, on := s.geminiKept(data, getenv)
	if !on {
		return nil
	}
	lost = append(lost, blocked...)
	why := "its environment redaction (security.environmentVariableRedaction)"
	if strict {
		why = "its GitHub Actions environment allowlist"
	}
	var out []Finding
	if len(lost) > 0 {
		out = append(out, Finding{Status: Warn,
			What: fmt.Sprintf("gemini: %s keeps %s from %s's hooks", why, strings.Join(lost, ", "), s.Binary),
			Fix:  fmt.Sprintf("list them in security.environmentVariableRedaction.allowed in %s", path)})
	}
	if len(secret) > 0 {
		out = append(out, Finding{Status: Warn,
			What: fmt.Sprintf("gemini: %s strips %s from %s's hooks, and no setting allows a name like that", why, strings.Join(secret, ", "), s.Binary),
			Fix:  fmt.Sprintf("set it in each %s hook's own \"env\" map in %s, which Gemini adds after the redaction", s.Binary, path)})
	}
	return out
}

// geminiAllowing is Gemini CLI's settings with names added to
// security.environmentVariableRedaction.allowed (made where missing), in
// place: Gemini's own environment allowlist step.
func geminiAllowing(a *Agent, data []byte, names []string) ([]byte, error) {
	d, err := parseDoc(data, a.Strict)
	if err != nil {
		return nil, err
	}
	obj, depth := d.root.Value.(*hujson.Object), 1
	path := []string{"security", "environmentVariableRedaction", "allowed"}
	for i, key := range path {
		m := member(obj, key)
		if m == nil {
			var v any = names
			for j := len(path) - 1; j > i; j-- {
				v = map[string]any{path[j]: v}
			}
			d.setMember(obj, key, v, depth)
			return d.bytes(), nil
		}
		if key == "allowed" {
			arr, ok := m.Value.(*hujson.Array)
			if !ok {
				return nil, fmt.Errorf("%s is not a list", strings.Join(path, "."))
			}
			for _, n := range names {
				d.appendElement(arr, n, depth)
			}
			return d.bytes(), nil
		}
		o, ok := m.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
		obj, depth = o, depth+1
	}
	return d.bytes(), nil
}

// names are the names of the variables the binary reads where the agent
// runs it: its own, then every binary's.
func (s Spec) names() []string {
	var out []string
	for _, v := range append(slices.Clip(s.Env), hook.Env...) {
		out = append(out, v.Names()...)
	}
	return out
}
