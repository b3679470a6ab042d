// Package erc writes a metadata.Record as an Electronic Resource Citation
// (ERC) in ANVL, the ARK community's own metadata: the kernel who, what,
// when and where, "(:unav)" for what the record lacks. It holds the ANVL
// writer that ?info's ERC (package info) uses too.
//
// A withdrawn record's ERC goes on after the kernel with withdrawn (the
// date, when known), reason and successor (its URL, when there is one).
package erc

import (
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type ERC in ANVL is served as.
const MediaType = "text/plain"

// Kernel is the record's ERC kernel: who (the creators' names, separated
// by "; "), what, when (as written), and where (the where meta, else the
// identifier's canonical URL).
func Kernel(r *metadata.Record) []Element {
	names := make([]string, len(r.Creators))
	for i, c := range r.Creators {
		names[i] = c.Name
	}
	where := r.Where
	if where == "" {
		where = r.URL
	}
	return []Element{{Name: "who", Value: strings.Join(names, "; ")}, {Name: "what", Value: r.Title},
		{Name: "when", Value: r.Date.Raw}, {Name: "where", Value: where}}
}

// Write writes r as an ERC record: "erc:", the kernel, and a tombstone's
// withdrawn, reason and successor.
func Write(w io.Writer, r *metadata.Record) error {
	var b strings.Builder
	b.WriteString("erc:\n")
	WriteElements(&b, Kernel(r), metadata.Unavailable)
	if wd := r.Withdrawal; wd != nil {
		tombstone := []Element{{Name: "withdrawn", Value: wd.Date.ISO()}, {Name: "reason", Value: wd.Reason}}
		if wd.Successor != nil {
			tombstone = append(tombstone, Element{Name: "successor", Value: wd.Successor.URL})
		}
		for _, e := range tombstone {
			if e.Value != "" {
				WriteElements(&b, []Element{e}, "")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
