package install

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// The TOML tests read what install writes with a real TOML parser
// (BurntSushi/toml, a test-only dependency): the hand-written editor
// must never write what TOML cannot read.

func decodeTOML(doc []byte) (map[string]any, error) {
	m := map[string]any{}
	_, err := toml.Decode(string(doc), &m)
	return m, err
}

// Our tables go at the end, after a blank line, each as install writes it;
// everything before them stays byte for byte; a user's table with our
// binary's command but another shape is ours too (replaced), and one with
// a key Kimi does not know is not (left alone).
func TestInstallTablesExact(t *testing.T) {
	a := Agents["kimi"]
	in := "# mine\nmodel = 'k'  # a comment\r\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify-send done\"\n"
	out, err := testSpec.Install(a, []byte(in), "/opt/my bin/nb-hook")
	if err != nil {
		t.Fatal(err)
	}
	want := in + "\n[[hooks]]\nevent = \"SessionStart\"\ncommand = \"'/opt/my bin/nb-hook' --agent kimi\"\ntimeout = 10\n\n" +
		"[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"'/opt/my bin/nb-hook' --agent kimi\"\ntimeout = 10\n\n" +
		"[[hooks]]\nevent = \"PermissionRequest\"\ncommand = \"'/opt/my bin/nb-hook' --agent kimi\"\ntimeout = 120\n\n" +
		"[[hooks]]\nevent = \"Stop\"\ncommand = \"'/opt/my bin/nb-hook' --agent kimi\"\ntimeout = 10\n\n" +
		"[[hooks]]\nevent = \"SessionEnd\"\ncommand = \"'/opt/my bin/nb-hook' --agent kimi\"\ntimeout = 10\n"
	if string(out) != want {
		t.Fatalf("install:\n%s\nwant:\n%s", out, want)
	}
	m, err := decodeTOML(out)
	if err != nil {
		t.Fatal(err)
	}
	hooks := m["hooks"].([]map[string]any)
	if len(hooks) != 6 || hooks[5]["command"] != "'/opt/my bin/nb-hook' --agent kimi" || hooks[5]["timeout"] != int64(10) {
		t.Errorf("as TOML: %v", hooks)
	}
	// A path with a backslash and a quote (Windows) is escaped.
	win, err := testSpec.Install(a, nil, `C:\Tools\nb-hook.exe`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(win), `command = "'C:\\Tools\\nb-hook.exe' --agent kimi"`) {
		t.Errorf("windows path:\n%s", win)
	}
	if back, _ := testSpec.Uninstall(a, win); len(back) != 0 {
		t.Errorf("uninstall of a new file left %q", back)
	}

	// An older install of ours (another path, a matcher, a comment in it)
	// goes; a table with a key Kimi does not know stays.
	old := "[[hooks]]\nevent = \"Stop\"\n# old\nmatcher = \".*\"\ncommand = \"/old/nb-hook --agent kimi\"\n\n" +
		"[[hooks]]\nevent = \"Stop\"\ncommand = \"/old/nb-hook\"\nextra = 1\n"
	out, err = testSpec.Install(a, []byte(old), "/x/nb-hook")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "/old/nb-hook --agent kimi") || !strings.Contains(string(out), "extra = 1") {
		t.Errorf("old tables:\n%s", out)
	}
}

// A file that sets "hooks" otherwise than as [[hooks]] tables is refused:
// no table appended after it could be read.
func TestInstallTablesRefused(t *testing.T) {
	a := Agents["kimi"]
	for _, doc := range []string{
		"hooks = []\n", "hooks.x = 1\n", "\"hooks\" = 1\n", "[hooks]\n", "[ hooks . x ]\n",
		"[[hooks.extra]]\n", "[\"hooks\"]\n", "a = 1\n[hooks] # here\n",
	} {
		if out, err := testSpec.Install(a, []byte(doc), "/x/nb-hook"); err == nil {
			t.Errorf("%q: installed:\n%s", doc, out)
		}
	}
	// Inside a table, hooks is any key; an array value's next line is no
	// header.
	for _, doc := range []string{"[tool]\nhooks = 1\n", "a = [\n[1],\n]\n", "[x.hooks]\n"} {
		if _, err := testSpec.Install(a, []byte(doc), "/x/nb-hook"); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
}

// FuzzInstallTables edits arbitrary text as Kimi Code's config.toml: never
// a panic; where install takes a file, uninstall does, a second install
// changes nothing, and install then uninstall gives back its bytes (unless
// it held hooks of ours already); where the file was TOML, the result is
// TOML too, the same document with our tables added to its hooks. Install
// refuses a TOML file only where "hooks" is not an array of Kimi's hook
// tables, or where a multi-line string might hide a line that looks like
// one.
func FuzzInstallTables(f *testing.F) {
	for _, doc := range []string{
		"", "\n", "a = 1", "a = 1\n", "# c", "a = 1\r\n", "[t]\nx = \"y\"\n", "\xEF\xBB\xBFa = 1\n",
		"[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n", "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"",
		"s = \"\"\"\n[[hooks]]\n\"\"\"\n", "a = [\n  1,\n]\n", "[hooks]\n", "x = {a = 1}\n\n\n",
		"[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/nb-hook --agent kimi\"\ntimeout = 10\n",
	} {
		f.Add(doc)
	}
	a := Agents["kimi"]
	f.Fuzz(func(t *testing.T, doc string) {
		installed, err := testSpec.Install(a, []byte(doc), "/x/nb-hook")
		_, uerr := testSpec.Uninstall(a, []byte(doc))
		in, terr := decodeTOML([]byte(doc))
		if err != nil {
			if terr == nil && !refusable(in, doc) {
				t.Fatalf("refused a TOML file whose hooks are Kimi's (%v):\n%q", err, doc)
			}
			return
		}
		if uerr != nil {
			t.Fatalf("install took what uninstall refused: %v", uerr)
		}
		again, err := testSpec.Install(a, installed, "/x/nb-hook")
		if err != nil || string(again) != string(installed) {
			t.Fatalf("a second install changed the file (%v):\n%q\n---\n%q", err, installed, again)
		}
		if terr == nil {
			out, err := decodeTOML(installed)
			if err != nil {
				t.Fatalf("install wrote what TOML cannot read: %v\n%q\nfrom\n%q", err, installed, doc)
			}
			if !strings.Contains(doc, "nb-hook") {
				checkAdded(t, in, out)
			}
		}
		if strings.Contains(doc, "nb-hook") {
			return // hooks of ours already there go
		}
		restored, err := testSpec.Uninstall(a, installed)
		if err != nil || string(restored) != doc {
			t.Fatalf("install then uninstall (%v):\n%q\nbecame\n%q", err, doc, restored)
		}
	})
}

// refusable: the decoded file's hooks are not all Kimi's hook tables, the
// file has a multi-line string, or it is not UTF-8 (TOML is; the parser
// takes a UTF-16 byte order mark for one).
func refusable(m map[string]any, doc string) bool {
	if !utf8.ValidString(doc) || strings.Contains(doc, `"""`) || strings.Contains(doc, "'''") {
		return true
	}
	h, ok := m["hooks"]
	if !ok {
		return false
	}
	tables, ok := h.([]map[string]any)
	if !ok {
		return true
	}
	for _, tb := range tables {
		for k := range tb {
			if k != "event" && k != "command" && k != "matcher" && k != "timeout" {
				return true
			}
		}
	}
	return false
}

// checkAdded: out is in with our five tables after its own hooks.
func checkAdded(t *testing.T, in, out map[string]any) {
	t.Helper()
	var had []map[string]any
	if h, ok := in["hooks"].([]map[string]any); ok {
		had = h
	}
	got, _ := out["hooks"].([]map[string]any)
	if len(got) != len(had)+5 {
		t.Fatalf("%d hooks, want %d + 5", len(got), len(had))
	}
	for i, ev := range []string{"SessionStart", "PreToolUse", "PermissionRequest", "Stop", "SessionEnd"} {
		h := got[len(had)+i]
		if h["event"] != ev || h["command"] != "/x/nb-hook --agent kimi" {
			t.Fatalf("hook %d: %v", i, h)
		}
	}
	delete(in, "hooks")
	delete(out, "hooks")
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("the rest changed:\n%v\n%v", in, out)
	}
}
