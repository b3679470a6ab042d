package info

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A target or metadata value may hold characters a page does not show as
// themselves: a right-to-left override (U+202E) between "Invoice" and
// "fdp.exe" makes them read as "Invoiceexe.pdf", a zero-width space
// (U+200B) hides a difference between two names. ?info shows each of them
// visibly, in every format: %-encoded in ANVL (anvl.go), \u-escaped in
// JSON, and marked in HTML, each value with other characters than ASCII
// isolated so that its direction cannot reorder the page around it.

// invisible reports whether c is a control or format character (Unicode
// Cc or Cf), other than the tab, newline and carriage return that lay text
// out.
func invisible(c rune) bool {
	return c != '\t' && c != '\n' && c != '\r' && (unicode.Is(unicode.Cc, c) || unicode.Is(unicode.Cf, c))
}

// EscapeInvisibleJSON returns data, the output of encoding/json, with every
// invisible character \u-escaped (a surrogate pair beyond U+FFFF):
// encoding/json escapes those below U+0020 only. Outside strings, JSON has
// nothing but ASCII and layout, so only string contents change.
func EscapeInvisibleJSON(data []byte) []byte {
	if !bytes.ContainsFunc(data, invisible) {
		return data
	}
	out := make([]byte, 0, len(data)+64)
	for len(data) > 0 {
		c, size := utf8.DecodeRune(data)
		switch {
		case !invisible(c):
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

// infoFuncs are the functions that the ?info page, and an info_template,
// may call.
var infoFuncs = htmltemplate.FuncMap{"visible": visibleHTML, "visibleText": visibleText}

// visibleHTML returns s for the text of an HTML element: as it is, for the
// template to escape, when it is ASCII without control characters; else
// escaped and isolated in <bdi>, each invisible character replaced by a
// marker naming it, <span class="ctl">U+202E</span>.
func visibleHTML(s string) any {
	if !strings.ContainsFunc(s, func(c rune) bool { return c >= utf8.RuneSelf || invisible(c) }) {
		return s
	}
	var b strings.Builder
	b.WriteString("<bdi>")
	for _, c := range s {
		if invisible(c) {
			fmt.Fprintf(&b, `<span class="ctl">U+%04X</span>`, c)
			continue
		}
		b.WriteString(htmltemplate.HTMLEscapeString(string(c)))
	}
	b.WriteString("</bdi>")
	return htmltemplate.HTML(b.String())
}

// visibleText returns s for where HTML has text only (a <title>), with
// each invisible character replaced by "[U+202E]".
func visibleText(s string) string {
	if !strings.ContainsFunc(s, invisible) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if invisible(c) {
			fmt.Fprintf(&b, "[U+%04X]", c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
