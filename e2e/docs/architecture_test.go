package docs

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/docsample"
)

// The import graph in README.md's Architecture section is the one `go
// list` gives today, and the section's package table names every package
// of that graph, and no package that is gone: a package added, moved or
// given a new import fails here until the README says so.
func TestReadmeArchitectureIsTheImportGraph(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	graph, err := docsample.ImportGraph(".")
	if err != nil {
		t.Fatal(err)
	}
	var copied *fence
	for _, f := range fileFences(t, "README.md") {
		if f.section == "## Architecture" && strings.Contains(f.before, "docsample.ImportGraph") {
			copied = &f
			break
		}
	}
	if copied == nil {
		t.Fatal("README.md's Architecture section has no import graph (a code block after a line naming docsample.ImportGraph)")
	}
	if copied.body != graph {
		t.Errorf("%s: the import graph differs from go list's; the graph today is:\n```\n%s```", copied.where(), graph)
	}

	rows := architectureRows(t)
	packages := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(graph, "\n"), "\n") {
		names, _, _ := strings.Cut(line, ":")
		for _, name := range strings.Split(names, ", ") {
			packages[name] = true
		}
	}
	for name := range packages {
		if !rows[name] && !coveredByRow(rows, name) {
			t.Errorf("README.md's Architecture table does not name the package %s", name)
		}
	}
	for row := range rows {
		if prefix, ok := strings.CutSuffix(row, "/…"); ok {
			if prefix != "e2e" && !hasPrefixIn(packages, prefix+"/") { // e2e/ holds tests only, not in the graph
				t.Errorf("README.md's Architecture table names %s, and there is no package under %s/", row, prefix)
			}
			continue
		}
		if !packages[row] {
			t.Errorf("README.md's Architecture table names %s, which is no package of the graph", row)
		}
	}
}

// architectureRows returns the package names of the first column of
// README.md's Architecture table.
func architectureRows(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]bool{}
	section := ""
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = line
		}
		if section != "## Architecture" || !strings.HasPrefix(line, "| `") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
		rows[name] = true
	}
	if len(rows) == 0 {
		t.Fatal("README.md's Architecture section has no package table")
	}
	return rows
}

// coveredByRow reports whether a row "X/…" covers the package name,
// which is under X/.
func coveredByRow(rows map[string]bool, name string) bool {
	for row := range rows {
		if prefix, ok := strings.CutSuffix(row, "/…"); ok && strings.HasPrefix(name, prefix+"/") {
			return true
		}
	}
	return false
}

// hasPrefixIn reports whether a name of names starts with prefix.
func hasPrefixIn(names map[string]bool, prefix string) bool {
	for name := range names {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
