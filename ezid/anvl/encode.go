package anvl

import "strings"

// EscapeName percent-encodes a name as EZID writes it: "%", ":", CR and
// LF become %25, %3A, %0D and %0A.
func EscapeName(s string) string { return escape(s, true) }

// EscapeValue percent-encodes a value as EZID writes it: "%", CR and LF
// become %25, %0D and %0A (a value may hold ":").
func EscapeValue(s string) string { return escape(s, false) }

// escape percent-encodes the structural characters of s, and ":" when
// colon is set.
func escape(s string, colon bool) string {
	special := "%\r\n"
	if colon {
		special = "%:\r\n"
	}
	if !strings.ContainsAny(s, special) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%', c == '\r', c == '\n', c == ':' && colon:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// AppendElement appends the line "name: value\n" to dst, name and value
// escaped (EscapeName, EscapeValue), and returns the extended buffer.
func AppendElement(dst []byte, name, value string) []byte {
	dst = append(dst, EscapeName(name)...)
	dst = append(dst, ':', ' ')
	dst = append(dst, EscapeValue(value)...)
	return append(dst, '\n')
}

// Format returns elems as an ANVL body, one line each, in their order.
// Parse reads it back to elems (names and values trimmed).
func Format(elems []Element) string {
	var b []byte
	for _, e := range elems {
		b = AppendElement(b, e.Name, e.Value)
	}
	return string(b)
}
