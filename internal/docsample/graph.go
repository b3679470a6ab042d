package docsample

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// ImportGraph returns the graph of imports between the packages of the
// module in dir, as the README's Architecture section shows it: from
// `go list -json ./...`, the packages of the module but bench/ (programs)
// and e2e/ (tests only), each with its imports of the module's packages
// (not its tests'), named without the module's path (the root package as
// "ark"). The packages that import none of the others share the first
// line; then each other package has a line, from the bottom layer up (by
// the longest chain of imports below it, then by name), its imports
// sorted by name.
func ImportGraph(dir string) (string, error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %w", err)
	}
	type listed struct {
		ImportPath string
		Imports    []string
		Module     struct{ Path string }
	}
	imports := map[string][]string{}
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return "", err
		}
		name := shortName(p.ImportPath, p.Module.Path)
		if strings.HasPrefix(name, "bench/") || strings.HasPrefix(name, "e2e/") {
			continue
		}
		imports[name] = []string{}
		for _, imp := range p.Imports {
			if imp == p.Module.Path || strings.HasPrefix(imp, p.Module.Path+"/") {
				imports[name] = append(imports[name], shortName(imp, p.Module.Path))
			}
		}
		slices.Sort(imports[name])
	}
	level := map[string]int{}
	var levelOf func(name string) int
	levelOf = func(name string) int {
		if l, ok := level[name]; ok {
			return l
		}
		l := 0
		for _, imp := range imports[name] {
			l = max(l, levelOf(imp)+1)
		}
		level[name] = l
		return l
	}
	names := make([]string, 0, len(imports))
	for name := range imports {
		names = append(names, name)
		levelOf(name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if level[a] != level[b] {
			return level[a] - level[b]
		}
		return strings.Compare(a, b)
	})
	var leaves []string
	var b strings.Builder
	for _, name := range names {
		if level[name] == 0 {
			leaves = append(leaves, name)
			continue
		}
		if leaves != nil {
			b.WriteString(strings.Join(leaves, ", ") + ":\n")
			leaves = nil
		}
		b.WriteString(name + ": " + strings.Join(imports[name], " ") + "\n")
	}
	if leaves != nil {
		b.WriteString(strings.Join(leaves, ", ") + ":\n")
	}
	return b.String(), nil
}

// shortName is a package's import path without the module's path: "ark"
// for the module's root package.
func shortName(importPath, module string) string {
	if importPath == module {
		return "ark"
	}
	return strings.TrimPrefix(importPath, module+"/")
}
