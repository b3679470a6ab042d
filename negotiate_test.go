package ark

import (
	"testing"
)

func TestAcceptNegotiation(t *testing.T) {
	for accept, want := range map[string]infoFormat{
		"":                                  formatANVL,
		"*/*":                               formatANVL,
		"text/*":                            formatANVL,
		"application/json":                  formatJSON,
		"application/*":                     formatJSON,
		"text/html":                         formatHTML,
		"TEXT/HTML; charset=utf-8":          formatHTML,
		"text/plain;q=0.5, text/html":       formatHTML,
		"application/json;q=0.9, */*;q=0.1": formatJSON,
		"text/html;q=0, */*":                formatANVL,
		"image/png":                         formatANVL,
		"text/html;q=0.8, application/json;q=0.8, text/plain;q=0.7": formatJSON,
	} {
		var header []string
		if accept != "" {
			header = []string{accept}
		}
		if got := negotiate(header); got != want {
			t.Errorf("Accept %q: got %s, want %s", accept, formatTypes[got], formatTypes[want])
		}
	}
}
