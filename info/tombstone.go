package info

import (
	"net/http"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/resolve"
)

// Tombstone is what the pages of a withdrawn identifier say of its
// withdrawal: the sentence every metadata format carries, and what
// replaces it, for a person to follow.
type Tombstone struct {
	// Statement is the withdrawal in one sentence, without its
	// successor: "Withdrawn on 2025-01-10: at the rights holder's
	// request.", the date and reason when known (metadata's statement).
	Statement string
	// Successor is the URL of what replaces the identifier: the
	// successor meta, an ARK or URN made a URL on this site, or an
	// http(s) URL; "" when it names none.
	Successor string
}

// Tombstone returns the record's tombstone, nil unless it is withdrawn.
func (rec *Record) Tombstone() *Tombstone {
	if !rec.Withdrawn() {
		return nil
	}
	return newTombstone(rec.Meta, rec.Reason, rec.Resolver)
}

// NewTombstone returns the tombstone of res, a withdrawn identifier, as
// the site at at shows it; nil for any other resolution.
func NewTombstone(at Links, res *resolve.Resolution) *Tombstone {
	if res == nil || res.Status != http.StatusGone || res.Key == "" {
		return nil
	}
	var meta map[string]string
	if res.Entry != nil {
		meta = res.Entry.Meta
	}
	reason := res.Reason
	if r := meta[metadata.KeyReason]; r != "" {
		reason = r
	}
	return newTombstone(meta, reason, at.Base+"/")
}

// newTombstone makes the tombstone of an identifier withdrawn for reason,
// with its meta, on the site whose identifiers' URLs start with resolver.
func newTombstone(meta map[string]string, reason, resolver string) *Tombstone {
	w := metadata.Withdrawal{Date: metadata.ParseDate(meta[metadata.KeyWithdrawn]), Reason: reason}
	t := &Tombstone{Statement: w.Statement()}
	if s := successorOf(meta, resolver); s != nil {
		t.Successor = s.URL
	}
	return t
}
