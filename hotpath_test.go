package hookwire_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxHookPathLines is the longest a function on the hook path may be: the
// lines between its braces. A hook runs on every event of every agent, and a
// maintainer reads it when one goes wrong; a function that fits on a screen
// does one thing at one level and can be read in one go.
const maxHookPathLines = 60

const module = "github.com/hookwire/hookwire"

// notHookPath are the packages a binary imports that do not run for a hook
// event: the commands for a person (install, uninstall, snippet, doctor),
// which a surface package imports only to build them. The import graph is
// not followed into them. Everything else a binary under cmd/ imports from
// this module is the hook path, every file of it whatever its build tags
// (the binaries ship for Linux, macOS and Windows).
var notHookPath = map[string]string{
	"internal/install": "install, uninstall, snippet, doctor: commands for a person, not run for a hook event",
}

// TestHookPathShort holds the rule: no function on the hook path is longer
// than maxHookPathLines. A function literal counts within the function that
// holds it; one at package level (a Dialect's Refine, say) counts alone.
func TestHookPathShort(t *testing.T) {
	t.Parallel()
	pkgs := hookPathPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d hook-path packages (%v): the import walk is broken", len(pkgs), pkgs)
	}
	for _, long := range longFunctions(t, pkgs, maxHookPathLines) {
		t.Errorf("%s: over %d lines on the hook path; split it", long, maxHookPathLines)
	}
}

// hookPathPackages walks the imports from every cmd/* main package, within
// this module, stopping at notHookPath. It returns directories relative to
// the repository root.
func hookPathPackages(t *testing.T) []string {
	t.Helper()
	mains, err := filepath.Glob("cmd/*")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no cmd/* binaries: %v", err)
	}
	seen := map[string]bool{}
	queue := append([]string(nil), mains...)
	for len(queue) > 0 {
		dir := filepath.ToSlash(queue[0])
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		if _, skip := notHookPath[dir]; skip {
			continue
		}
		seen[dir] = true
		for _, file := range goFiles(t, dir) {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if rel, ok := strings.CutPrefix(p, module+"/"); ok {
					queue = append(queue, rel)
				}
			}
		}
	}
	var dirs []string
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// goFiles are a package directory's Go files, without its tests.
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			files = append(files, path.Join(dir, n))
		}
	}
	return files
}

// longFunctions names, as file:line name (lines), every function declared
// in dirs whose body is longer than max lines, and every package-level
// function literal that is.
func longFunctions(t *testing.T, dirs []string, max int) []string {
	t.Helper()
	var long []string
	fset := token.NewFileSet()
	for _, dir := range dirs {
		for _, file := range goFiles(t, dir) {
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				ast.Inspect(decl, func(n ast.Node) bool {
					name, body := "", (*ast.BlockStmt)(nil)
					switch fn := n.(type) {
					case *ast.FuncDecl:
						name, body = fn.Name.Name, fn.Body
					case *ast.FuncLit:
						name, body = "func literal", fn.Body
					default:
						return true
					}
					if body == nil {
						return false
					}
					lines := fset.Position(body.Rbrace).Line - fset.Position(body.Lbrace).Line - 1
					if lines > max {
						pos := fset.Position(n.Pos())
						long = append(long, fmt.Sprintf("%s:%d %s (%d lines)", pos.Filename, pos.Line, name, lines))
					}
					// A literal inside counts with its function.
					return false
				})
			}
		}
	}
	return long
}

// TestLongFunctionsFound keeps TestHookPathShort able to fail: a body one
// line over the limit is named.
func TestLongFunctionsFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "package p\n\nfunc long() {\n" + strings.Repeat("\t_ = 0\n", 61) + "}\n\nfunc short() {\n" + strings.Repeat("\t_ = 0\n", 60) + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	long := longFunctions(t, []string{filepath.ToSlash(dir)}, maxHookPathLines)
	if len(long) != 1 || !strings.Contains(long[0], " long (61 lines)") {
		t.Errorf("longFunctions = %q, want only long at 61 lines", long)
	}
}

// TestNoRegexpAtInit holds the rule that cut most of a hook's start (issue
// 23): no package a binary imports compiles a regular expression when the
// package initialises. Package init runs in every hook of every agent; one
// expression with a counted repetition ({0,63}) cost some 870 allocations
// there. Compile it on first use (sync.OnceValue), where it is needed. The
// packages for a person's commands count too: their init runs in hooks as
// well.
func TestNoRegexpAtInit(t *testing.T) {
	t.Parallel()
	dirs := append(hookPathPackages(t), "internal/install")
	for _, dir := range dirs {
		for _, file := range goFiles(t, dir) {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range initCompiles(f) {
				t.Errorf("%s: %s at package level: compile it on first use", file, call)
			}
		}
	}
}

// initCompiles names the regexp compilations in f's package-level
// variables, outside function literals (which run later, if ever).
func initCompiles(f *ast.File) []string {
	var found []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		ast.Inspect(gen, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(n.Sel.Name, "MustCompile") {
					found = append(found, "regexp."+n.Sel.Name)
				}
			}
			return true
		})
	}
	return found
}
