package cli

import (
	"fmt"
	"io"

	"github.com/caddy-ark/caddy-ark/table"
)

// compileAll compiles the JSON table files at paths into out and writes
// what it did to w.
func compileAll(paths []string, out string, w io.Writer) error {
	st, err := table.Compile(paths, out)
	if err != nil {
		return err
	}
	per := 0.0
	if st.Distinct > 0 {
		per = float64(st.Size) / float64(st.Distinct)
	}
	fmt.Fprintf(w, "%s: %s from %d entries (%d duplicates dropped), %d bytes, %.1f bytes per identifier\n",
		out, count(st.Distinct, "identifier"), st.Entries, st.Entries-st.Distinct, st.Size, per)
	return nil
}
