package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/docsample"
)

// arkBlock matches a Caddyfile line that opens an ark directive's block.
var arkBlock = regexp.MustCompile(`(?m)^\s*ark(\s[^\n{]*)?\{\s*$`)

// fmtVerb matches the fmt verbs of a test's Caddyfile template.
var fmtVerb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// caddyfilesCmd writes every Caddyfile of the checkout at -repo into
// -out, with an index (out/index.tsv: file, origin): examples/Caddyfile
// as it is (adapted in place, so its relative paths hold), the caddyfile
// code blocks of README.md and docs/ (a block that is not a whole
// Caddyfile goes into a site block), and the Go string literals of the
// test files that hold an ark block (fmt verbs filled with fixed words).
func caddyfilesCmd(args []string) error {
	fl := flag.NewFlagSet("caddyfiles", flag.ExitOnError)
	repo := fl.String("repo", "", "the checkout")
	out := fl.String("out", "", "the directory to write to")
	_ = fl.Parse(args)
	var index []string
	seen := map[string]bool{}
	add := func(kind, origin, body string) error {
		if seen[body] {
			return nil
		}
		seen[body] = true
		name := filepath.Join(*out, fmt.Sprintf("%s-%03d.Caddyfile", kind, len(index)))
		index = append(index, name+"\t"+origin)
		return os.WriteFile(name, []byte(body), 0o644)
	}
	index = append(index, filepath.Join(*repo, "examples", "Caddyfile")+"\texamples/Caddyfile")
	fs, err := allFences(*repo)
	if err != nil {
		return err
	}
	docs := 0
	for _, f := range fs {
		if f.lang != "caddyfile" {
			continue
		}
		body := f.body
		if !docsample.IsFullCaddyfile(body) {
			body = "localhost:8080 {\n" + body + "}\n"
		}
		docs++
		if err := add("doc", fmt.Sprintf("%s:%d", f.file, f.line), body); err != nil {
			return err
		}
	}
	tests, err := testCaddyfiles(*repo)
	if err != nil {
		return err
	}
	for _, t := range tests {
		if err := add("test", t[0], t[1]); err != nil {
			return err
		}
	}
	fmt.Printf("Caddyfiles: examples/Caddyfile, %d code blocks of README.md and docs/, %d string literals of test files (%d distinct in all)\n", docs, len(tests), len(index))
	return os.WriteFile(filepath.Join(*out, "index.tsv"), []byte(strings.Join(index, "\n")+"\n"), 0o644)
}

// testCaddyfiles returns (origin, Caddyfile) for every string literal
// (or sum of strings) of the checkout's _test.go files that opens an ark
// block. A literal with
// fmt verbs is a template: %d becomes 9, %% a %, any other verb the word
// x; a literal that is not a whole Caddyfile goes into a site block.
func testCaddyfiles(repo string) ([][2]string, error) {
	var out [][2]string
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		ast.Inspect(file, func(n ast.Node) bool {
			s, ok := stringExpr(n)
			if !ok {
				return true
			}
			if !arkBlock.MatchString(s) {
				return false
			}
			s = fmtVerb.ReplaceAllStringFunc(s, func(v string) string {
				switch v[len(v)-1] {
				case 'd':
					return "9"
				case '%':
					return "%"
				}
				return "x"
			})
			if !docsample.IsFullCaddyfile(s) {
				s = "localhost:8080 {\n" + s + "\n}\n"
			}
			out = append(out, [2]string{fmt.Sprintf("%s:%d", rel, fset.Position(n.Pos()).Line), s})
			return false
		})
		return nil
	})
	return out, err
}

// stringExpr returns the string n spells if it is a string literal or a
// sum (+) of strings with at least one literal; an operand that is not a
// literal (a variable, a call) is the word x.
func stringExpr(n ast.Node) (string, bool) {
	switch e := n.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		l, lok := stringExpr(e.X)
		r, rok := stringExpr(e.Y)
		if !lok && !rok {
			return "", false
		}
		if !lok {
			l = "x"
		}
		if !rok {
			r = "x"
		}
		return l + r, true
	}
	return "", false
}
