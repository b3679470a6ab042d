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
		fmt.Fprintf(out, "%s: %d identifiers\n", s.name, next-s.first)
	}
	fmt.Fprintf(out, "ok: %d identifiers (%d ARKs under NAAN %s, %d URNs): %d in place, %d redirected, %d related (303), %d withdrawn (410)\n",
		t.len(), t.len()-urns, strings.Join(naans, ", "), urns, inPlace, redirect, related, gone)
	return nil
}
