package main

import (
	"fmt"
	"os"
	"strings"
)

// attribution is one line of additions.tsv: what a new commit may add
// (a pattern; a final * makes it a prefix) and why.
type attribution struct{ pattern, why string }

// attributions are the lines of additions.tsv.
type attributions []attribution

// readAttributions reads additions.tsv: pattern, tab, why; # starts a
// comment. An empty path reads none.
func readAttributions(path string) (attributions, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out attributions
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, why, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want a pattern, a tab and why", path, i+1)
		}
		out = append(out, attribution{p, why})
	}
	return out, nil
}

// attribute returns why thing was added, if the list says.
func (a attributions) attribute(thing string) (string, bool) {
	for _, x := range a {
		if p, prefix := strings.CutSuffix(x.pattern, "*"); prefix && strings.HasPrefix(thing, p) || x.pattern == thing {
			return x.why, true
		}
	}
	return "", false
}

// report prints an addition with its attribution and says whether it
// has one.
func (a attributions) report(thing string) bool {
	why, ok := a.attribute(thing)
	if !ok {
		fmt.Printf("  UNATTRIBUTED addition: %s\n", thing)
		return false
	}
	fmt.Printf("  added: %s  [%s]\n", thing, why)
	return true
}
