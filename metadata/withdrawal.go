package metadata

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// Withdrawal is the tombstone of a withdrawn identifier (status 410).
type Withdrawal struct {
	// Date is when it was withdrawn (the withdrawn meta); unknown when not
	// given.
	Date Date
	// Reason says why (the reason meta, else the resolver's statement).
	Reason string
	// Successor is what replaces it, when the successor meta names
	// something.
	Successor *Successor
}

// Successor is what replaces a withdrawn identifier.
type Successor struct {
	// ID is the successor's normalized identifier when it is an ARK or
	// URN; "" for a URL.
	ID string
	// URL is where it is: the identifier's URL on this site, or the URL
	// given.
	URL string
}

// ParseSuccessor reads the successor syntax: an ARK or URN, made a URL
// under resolver (the site's URL with its trailing "/"), or an absolute
// http(s) URL. Anything else is no successor: nil.
func ParseSuccessor(v, resolver string) *Successor {
	if v == "" {
		return nil
	}
	if u := httpURL(v); u != "" {
		return &Successor{URL: u}
	}
	lower := strings.ToLower(v)
	if !strings.HasPrefix(lower, "ark:") && !strings.HasPrefix(lower, "urn:") {
		return nil
	}
	key, err := normalize.Key(v)
	if err != nil {
		return nil
	}
	return &Successor{ID: key, URL: resolver + key}
}

// Statement is the withdrawal in one sentence, for formats that can state
// it in free text only: "Withdrawn on 2025-01-10: at the rights holder's
// request. Replaced by https://….", each part only when known.
func (w *Withdrawal) Statement() string {
	var b strings.Builder
	b.WriteString("Withdrawn")
	if d := w.Date.ISO(); d != "" {
		b.WriteString(" on " + d)
	}
	if w.Reason != "" {
		b.WriteString(": " + strings.TrimRight(w.Reason, "."))
	}
	b.WriteString(".")
	if w.Successor != nil {
		b.WriteString(" Replaced by " + w.Successor.URL + ".")
	}
	return b.String()
}
