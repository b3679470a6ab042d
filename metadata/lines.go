package metadata

import "strings"

// lineBreaks makes every line break a space: CR LF, and each character
// Unicode makes a mandatory break (LF, VT, FF, CR, NEL, U+2028 LINE
// SEPARATOR, U+2029 PARAGRAPH SEPARATOR), some readers of line-based
// formats break lines at.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\v", " ", "\f", " ", "\r", " ",
	"\u0085", " ", "\u2028", " ", "\u2029", " ")

// OneLine is v with each of its line breaks, of any kind, made a space:
// a value of a line-based format (RIS, BibTeX, a plain-text citation) is
// one line, so that no value can start a line of its own.
func OneLine(v string) string { return lineBreaks.Replace(v) }
