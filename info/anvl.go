package info

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata/erc"
)

// unavailable is the ERC code for a value that is not available.
const unavailable = "(:unav)"

// ANVL renders rec as text/plain: two ANVL records separated by a blank
// line. The first is the ERC the ARK community expects (erc: who, what,
// when, where, then erc-support: the commitment); the second is this
// resolver's details about the identifier. Values that hold a newline are
// folded, so every line after the first starts with a space and no value
// can begin a new element; other control and format characters are
// %-encoded (erc.WriteElements).
func ANVL(rec *Record) string {
	var b strings.Builder
	b.WriteString("erc:\n")
	writeElements(&b, rec.Kernel(), unavailable)
	b.WriteString("erc-support:\n")
	writeElements(&b, rec.Support(), unavailable)
	b.WriteString("\n")
	writeElements(&b, rec.Details(), "")
	return b.String()
}

// writeElements writes the elements with erc's ANVL writer, with missing
// for an empty value.
func writeElements(b *strings.Builder, elements []element, missing string) {
	out := make([]erc.Element, len(elements))
	for i, e := range elements {
		out[i] = erc.Element{Name: e.Name, Value: e.Value}
	}
	erc.WriteElements(b, out, missing)
}
