package erc

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/internal/visible"
)

// Element is one labelled value of an ANVL record.
type Element struct {
	// Name is the element's label, e.g. "who".
	Name string
	// Value is its value; "" when unknown.
	Value string
}

// WriteElements writes one "name: value" line per element, with missing
// for an empty value (no value at all when missing is ""). Values that
// hold a newline are folded, so every line after the first starts with a
// space and no value can begin a new element; other control and format
// characters are %-encoded, as are ":", "%", spaces and controls in
// names.
func WriteElements(b *strings.Builder, elements []Element, missing string) {
	for _, e := range elements {
		value := Value(e.Value)
		if value == "" {
			value = missing
		}
		b.WriteString(Name(e.Name) + ":")
		if value != "" {
			b.WriteString(" " + value)
		}
		b.WriteString("\n")
	}
}

// Name %-encodes what may not stand in an element name: the colon that
// ends it, "%", spaces and control characters.
func Name(name string) string {
	return escapeRunes(name, func(c rune) bool { return c == ':' || c == '%' || c <= ' ' || isControl(c) })
}

// Value folds the lines of a value (each continuation line starts with a
// space; empty lines are dropped, since a blank line ends a record) and
// %-encodes control characters.
func Value(value string) string {
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
// itself (visible.Invisible: the one rule for every place that shows an
// identifier or a value), or a newline or carriage return, which would end
// the line.
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
