// Package visible shows text that may hold characters a page does not show
// as themselves: a right-to-left override (U+202E) between "Invoice" and
// "fdp.exe" makes them read as "Invoiceexe.pdf", a zero-width space
// (U+200B) hides a difference between two names. Every place that shows an
// identifier, a target or a metadata value (?info in every format, the
// console's pages) shows each of them visibly, by one rule: Invisible.
// The API refuses a target that holds one raw.
package visible

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Invisible reports whether c is a control or format character (Unicode
// Cc or Cf: a bidi override, a zero-width space) or a line or paragraph
// separator (U+2028, U+2029), other than the tab, newline and carriage
// return that lay text out.
func Invisible(c rune) bool {
	return c != '\t' && c != '\n' && c != '\r' && (unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp))
}

// EscapeJSON returns data, the output of encoding/json, with every
// invisible character \u-escaped (a surrogate pair beyond U+FFFF):
// encoding/json escapes those below U+0020 only. Outside strings, JSON has
// nothing but ASCII and layout, so only string contents change.
func EscapeJSON(data []byte) []byte {
	if !bytes.ContainsFunc(data, Invisible) {
		return data
	}
	out := make([]byte, 0, len(data)+64)
	for len(data) > 0 {
		c, size := utf8.DecodeRune(data)
		switch {
		case !Invisible(c):
			out = append(out, data[:size]...)
		case c > 0xFFFF:
			high, low := utf16.EncodeRune(c)
			out = fmt.Appendf(out, `\u%04X\u%04X`, high, low)
		default:
			out = fmt.Appendf(out, `\u%04X`, c)
		}
		data = data[size:]
	}
	return out
}

// Funcs are the template functions of the rule: {{visible .X}} in an HTML
// element's text, {{visibleText .X}} where HTML has text only (a <title>).
var Funcs = htmltemplate.FuncMap{"visible": HTML, "visibleText": Text}

// HTML returns s for the text of an HTML element: as it is, for the
// template to escape, when it is ASCII without control characters; else
// escaped and isolated in <bdi>, so that its direction cannot reorder the
// page around it, each invisible character replaced by a marker naming
// it, <span class="ctl">U+202E</span>.
func HTML(s string) any { return markedHTML(s, Invisible) }

// ASCIIHTML is HTML for a name that is meant to be printable ASCII, a
// key's: every other character is a marker too, so that no such name
// looks like another ("x5еd", with a Cyrillic е, shows as x5U+0435d).
func ASCIIHTML(s string) any {
	return markedHTML(s, func(c rune) bool { return c <= ' ' || c > '~' })
}

// markedHTML returns s for the text of an HTML element, each character
// for which marked is true replaced by a marker naming it.
func markedHTML(s string, marked func(rune) bool) any {
	if !strings.ContainsFunc(s, func(c rune) bool { return c >= utf8.RuneSelf || marked(c) }) {
		return s
	}
	var b strings.Builder
	b.WriteString("<bdi>")
	for _, c := range s {
		if marked(c) {
			fmt.Fprintf(&b, `<span class="ctl">U+%04X</span>`, c)
			continue
		}
		b.WriteString(htmltemplate.HTMLEscapeString(string(c)))
	}
	b.WriteString("</bdi>")
	return htmltemplate.HTML(b.String())
}

// Text returns s with each invisible character replaced by "[U+202E]".
func Text(s string) string {
	if !strings.ContainsFunc(s, Invisible) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if Invisible(c) {
			fmt.Fprintf(&b, "[U+%04X]", c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// PercentEncode returns s, a URL, with each invisible character
// percent-encoded, as a Location header sends it: the same address, which
// shows and can be written back as it is.
func PercentEncode(s string) string {
	if !strings.ContainsFunc(s, Invisible) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if !Invisible(c) {
			b.WriteRune(c)
			continue
		}
		for _, o := range []byte(string(c)) {
			fmt.Fprintf(&b, "%%%02X", o)
		}
	}
	return b.String()
}
