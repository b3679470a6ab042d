package ark

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// checkTables loads the table files together, exactly as the handler
// would (syntax, identifiers, targets, statuses, equivalent identifiers
// with different targets across all files), and writes a summary to out.
// The error names the file, line, entry and reason of the first problem.
func checkTables(paths []string, out io.Writer) error {
	t, err := loadTable(paths, nil)
	if err != nil {
		return err
	}
	var inPlace, redirect, related, gone, urns int
	for i := range t.records {
		r := &t.records[i]
		switch r.status {
		case 200:
			inPlace++
		case 303:
			related++
		case 410:
			gone++
		default:
			redirect++
		}
		if strings.HasPrefix(t.arena.str(r.key, int(r.keyLen)), "urn:") {
			urns++
		}
	}
	naans := slices.Sorted(func(yield func(string) bool) {
		for n := range t.naans {
			if !yield(n) {
				return
			}
		}
	})
	for i, s := range t.sources[:len(paths)] {
		next := t.len()
		if i+1 < len(t.sources) {
			next = t.sources[i+1].first
		}
		fmt.Fprintf(out, "%s: %s\n", s.name, count(next-s.first, "identifier"))
	}
	if t.len() == 0 {
		fmt.Fprintln(out, `ok: no identifiers: the table is empty ({"entries": []})`)
		return nil
	}
	var kinds []string
	if arks := t.len() - urns; arks > 0 {
		under := "NAAN"
		if len(naans) > 1 {
			under = "NAANs"
		}
		kinds = append(kinds, fmt.Sprintf("%s under %s %s", count(arks, "ARK"), under, strings.Join(naans, ", ")))
	}
	if urns > 0 {
		kinds = append(kinds, count(urns, "URN"))
	}
	fmt.Fprintf(out, "ok: %s (%s): %d in place, %d redirected, %d related (303), %d withdrawn (410)\n",
		count(t.len(), "identifier"), strings.Join(kinds, "; "), inPlace, redirect, related, gone)
	return nil
}

// count writes n and noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
