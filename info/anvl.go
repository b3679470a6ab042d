package info

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/internal/visible"
)

// unavailable is the ERC code for a value that is not available.
const unavailable = "(:unav)"

// ANVL renders rec as text/plain: two ANVL records separated by a blank
// line. The first is the ERC the ARK community expects (erc: who, what,
// when, where, then erc-support: the commitment); the second is this
// resolver's details about the identifier. Values that hold a newline are
// folded, so every line after the first starts with a space and no value
// can begin a new element; other control and format characters are
// %-encoded.
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

// writeElements writes one "name: value" line per element, with missing
// for an empty value.
func writeElements(b *strings.Builder, elements []element, missing string) {
	for _, e := range elements {
		value := anvlValue(e.Value)
		if value == "" {
			value = missing
		}
		b.WriteString(anvlName(e.Name) + ":")
		if value != "" {
			b.WriteString(" " + value)
		}
		b.WriteString("\n")
	}
}

// anvlName %-encodes what may not stand in an element name: the colon that
// ends it, "%", spaces and control characters.
func anvlName(name string) string {
	return escapeRunes(name, func(c rune) bool { return c == ':' || c == '%' || c <= ' ' || isControl(c) })
}

// anvlValue folds the lines of a value (each continuation line starts with
// a space; empty lines are dropped, since a blank line ends a record) and
// %-encodes control characters.
func anvlValue(value string) string {
	value = strings.ReplaceAll(value, "\r\n", "\n")
	var lines []string
	for line := range strings.SplitSeq(value, "\n") {
		if line = strings.TrimSpace(escapeRunes(line, isControl)); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n ")
}

// isControl reports whether c is a character that a value cannot show as
// itself (visible.Invisible), or a newline or carriage return, which
// would end the line.
func isControl(c rune) bool {
	return c == '\n' || c == '\r' || visible.Invisible(c)
}

// escapeRunes %-encodes, as UTF-8, every rune of s for which escape is true.
func escapeRunes(s string, escape func(rune) bool) string {
	if !strings.ContainsFunc(s, escape) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if !escape(c) {
			b.WriteRune(c)
			continue
		}
		var buf [utf8.UTFMax]byte
		for _, octet := range buf[:utf8.EncodeRune(buf[:], c)] {
			fmt.Fprintf(&b, "%%%02X", octet)
		}
	}
	return b.String()
}
