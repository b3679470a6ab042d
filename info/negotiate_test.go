package info

import (
	"testing"
)

func TestAcceptNegotiation(t *testing.T) {
	for accept, want := range map[string]Format{
		"":                                  formatANVL,
		"*/*":                               formatANVL,
		"text/*":                            formatANVL,
		"application/json":                  FormatJSON,
		"application/*":                     FormatJSON,
		"text/html":                         FormatHTML,
		"TEXT/HTML; charset=utf-8":          FormatHTML,
		"text/plain;q=0.5, text/html":       FormatHTML,
		"application/json;q=0.9, */*;q=0.1": FormatJSON,
		"text/html;q=0, */*":                formatANVL,
		"image/png":                         formatANVL,
		"text/html;q=0.8, application/json;q=0.8, text/plain;q=0.7": FormatJSON,
	} {
		var header []string
		if accept != "" {
			header = []string{accept}
		}
		if got := Negotiate(header); got != want {
			t.Errorf("Accept %q: got %s, want %s", accept, formatTypes[got], formatTypes[want])
		}
	}
}
