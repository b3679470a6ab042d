package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/docsample"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// docFiles are the Markdown files whose samples the tests check: README.md
// and every Markdown file under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 1 {
		t.Fatal("no Markdown files under docs/")
	}
	return files
}

// fence is one fenced code block of a Markdown file.
type fence struct {
	file    string
	lang    string // the info string's first word
	info    string // the whole info string
	line    int    // the line of the opening fence
	section string // the nearest "## " heading above it
	before  string // the last line above it that is not blank, trimmed
	body    string // the block's text, without the fence's indentation
}

// where names the fence's opening line, as file:line.
func (f fence) where() string { return fmt.Sprintf("%s:%d", f.file, f.line) }

// fileFences returns every fenced code block of the Markdown file at path.
func fileFences(t *testing.T, path string) []fence {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fence
	var cur *fence
	var indent, section, last string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(line, "## "):
			section = line
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			info := strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			lang, _, _ := strings.Cut(info, " ")
			cur = &fence{file: path, lang: lang, info: info, line: n, section: section, before: last}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
			last = ""
		case cur != nil:
			cur.body += strings.TrimPrefix(line, indent) + "\n"
		}
		if cur == nil && strings.TrimSpace(line) != "" && !strings.HasPrefix(trimmed, "```") {
			last = strings.TrimSpace(line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s: unclosed code block", cur.where())
	}
	return out
}

// docFences returns the fenced code blocks of README.md and docs/ whose
// language is lang.
func docFences(t *testing.T, lang string) []fence {
	t.Helper()
	var out []fence
	for _, file := range docFiles(t) {
		for _, f := range fileFences(t, file) {
			if f.lang == lang {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("README.md and docs/ have no %s code blocks", lang)
	}
	return out
}

// Every Caddyfile sample in README.md and docs/ is as `caddy fmt` writes
// it, and every whole one adapts without a warning.
func TestReadmeCaddyfileSamplesAreFormattedAndAdapt(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	full := 0
	for _, f := range docFences(t, "caddyfile") {
		if got := string(caddyfile.Format([]byte(f.body))); got != f.body {
			t.Errorf("%s: the Caddyfile sample is not as caddy fmt writes it; caddy fmt gives:\n%s", f.where(), got)
		}
		if !docsample.IsFullCaddyfile(f.body) {
			continue
		}
		full++
		if _, err := caddytest.AdaptCaddyfile(f.body, "/etc/caddy/Caddyfile"); err != nil {
			t.Errorf("%s: the Caddyfile sample does not adapt: %v", f.where(), err)
		}
	}
	if full == 0 {
		t.Error("no whole Caddyfile sample found in README.md or docs/")
	}
}

// The JSON config sample (docs/tables.md) is the ark handler of the
// Caddyfile sample, adapted as if the Caddyfile were /etc/caddy/Caddyfile.
func TestReadmeJSONSampleIsTheCaddyfileSampleAdapted(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	sample := func(lang, section string) string {
		for _, f := range docFences(t, lang) {
			if f.file == "docs/tables.md" && f.section == section {
				return f.body
			}
		}
		t.Fatalf("docs/tables.md has no %s sample under %q", lang, section)
		return ""
	}
	adapted, err := caddytest.AdaptCaddyfile(sample("caddyfile", "## Caddyfile"), "/etc/caddy/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	handler := findHandler(t, adapted, "ark")
	// The sample leaves out the table_stamp, which follows the table
	// files' state, and says so.
	delete(handler, "table_stamp")
	var want any
	if err := json.Unmarshal([]byte(sample("json", "## JSON config")), &want); err != nil {
		t.Fatalf("the JSON config sample of docs/tables.md is not JSON: %v", err)
	}
	a, _ := json.Marshal(handler)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		pretty, _ := json.MarshalIndent(handler, "", "\t")
		t.Errorf("the JSON config sample of docs/tables.md is not the Caddyfile sample adapted; adapting gives:\n%s", pretty)
	}
}

// findHandler returns the first handler named name in an adapted config.
func findHandler(t *testing.T, cfg []byte, name string) map[string]any {
	t.Helper()
	var doc any
	if err := json.Unmarshal(cfg, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) map[string]any
	walk = func(v any) map[string]any {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == name {
				return v
			}
			for _, c := range v {
				if h := walk(c); h != nil {
					return h
				}
			}
		case []any:
			for _, c := range v {
				if h := walk(c); h != nil {
					return h
				}
			}
		}
		return nil
	}
	h := walk(doc)
	if h == nil {
		t.Fatalf("no %q handler in the adapted config: %s", name, cfg)
	}
	return h
}

// Every Go sample in README.md and docs/ is the body of an Example function of an
// example_test.go file, so that it compiles and its output is checked.
func TestReadmeGoSamplesAreExamples(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	examples := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "example_test.go" {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+2 : fset.Position(fn.Body.Rbrace).Offset])
			var b strings.Builder
			for _, line := range strings.SplitAfter(body, "\n") {
				b.WriteString(strings.TrimPrefix(line, "\t"))
			}
			examples[b.String()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range docFences(t, "go") {
		if !examples[f.body] {
			t.Errorf("%s: the Go sample is not the body of an Example function in an example_test.go file", f.where())
		}
	}
}

// mdLink is a Markdown link or image target: ](target) or ](target "title").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// headingAnchors returns the anchors GitHub gives the headings of the
// Markdown file at path (outside code blocks).
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			inFence = !inFence
			continue
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if inFence || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// Every relative link of README.md and docs/ names a file of the
// repository, and a heading of it when it has a #fragment: moving a
// section from one page to another must move its links too.
func TestDocsLinksResolve(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inFence := false
		for n, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, fragment, _ := strings.Cut(target, "#")
				if path == "" {
					path = file
				} else {
					path = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: the link %q names no file: %v", file, n+1, target, err)
					continue
				}
				if fragment != "" && !headingAnchors(t, path)[fragment] {
					t.Errorf("%s:%d: the link %q names no heading of %s", file, n+1, target, path)
				}
			}
		}
	}
}
