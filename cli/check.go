package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/table"
)

// checkTables checks table files as the handler would load them, and
// writes a summary to out. JSON files are loaded together, exactly as the
// handler would (syntax, identifiers, targets, statuses, equivalent
// identifiers with different targets across all files). A compiled table
// is checked on its own, in full: its checksum, every record, and its
// index. The error names the file (with the line and entry of a JSON file)
// and the reason of the first problem.
func checkTables(paths []string, out io.Writer) error {
	var jsonFiles []string
	for _, path := range paths {
		compiled, err := table.IsCompiled(path)
		if err != nil {
			return err
		}
		if !compiled {
			jsonFiles = append(jsonFiles, path)
			continue
		}
		if err := checkCompiledTable(path, out); err != nil {
			return err
		}
	}
	if len(jsonFiles) == 0 {
		return nil
	}
	t, counts, err := table.LoadCounted(jsonFiles)
	if err != nil {
		return err
	}
	for i, path := range jsonFiles {
		fmt.Fprintf(out, "%s: %s\n", path, count(counts[i], "identifier"))
	}
	summarize(t, out)
	return nil
}

// checkCompiledTable checks the compiled table at path in full.
func checkCompiledTable(path string, out io.Writer) error {
	t, err := table.OpenCompiled(path, false)
	if err != nil {
		return err
	}
	if err := t.Check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(out, "%s: compiled table, checksum ok, %s\n", path, count(t.Len(), "identifier"))
	summarize(t, out)
	return nil
}

// summarize writes what t holds: its identifiers, ARKs by NAAN, URNs, and
// its assignments by kind.
func summarize(t table.Table, out io.Writer) {
	if t.Len() == 0 {
		fmt.Fprintln(out, `ok: no identifiers: the table is empty ({"entries": []})`)
		return
	}
	var inPlace, redirect, related, gone, urns int
	for key, a := range t.All() {
		switch a.Status {
		case 200:
			inPlace++
		case 303:
			related++
		case 410:
			gone++
		default:
			redirect++
		}
		if strings.HasPrefix(key, "urn:") {
			urns++
		}
	}
	naans := t.NAANs()
	var kinds []string
	if arks := t.Len() - urns; arks > 0 {
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
		count(t.Len(), "identifier"), strings.Join(kinds, "; "), inPlace, redirect, related, gone)
}

// count writes n and noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
