package store

import (
	"net/http"
	"strings"
)

// Metadata keys that every path honours for a binding, whoever wrote
// them (the EZID API, the native API, the console, an import): EZID's
// internal elements that change how an identifier is answered. The ezid
// package maps the rest of EZID's elements.
const (
	// StatusMeta holds EZID's "unavailable" or "unavailable | <reason>"
	// for a bound identifier (status 200 to 307) whose object is not
	// available: the resolver, ?info, signposting and OAI-PMH answer it
	// as a tombstone (410, with the reason), yet it is not withdrawn: its
	// target is kept, and removing the key (EZID's "_status: public")
	// makes it resolve again. Any other value of the key means nothing.
	StatusMeta = "_status"

	// ExportMeta holds EZID's "_export": "no" (in any case) keeps the
	// identifier out of OAI-PMH; any other value, or none, is "yes".
	ExportMeta = "_export"

	// DeletedMeta marks a name minted but not bound (Status 0) that EZID's
	// API deleted while it was reserved: it stays so that the name is
	// never assigned again, and EZID's API no longer answers for it. Its
	// value is when (Unix seconds). A change that binds the name through
	// the native API drops the mark.
	DeletedMeta = "_deleted"
)

// UnavailableMeta reports whether meta says that its identifier is
// unavailable, as EZID writes it in StatusMeta ("unavailable", or
// "unavailable" and "|" and a reason), and returns the reason.
func UnavailableMeta(meta map[string]string) (reason string, ok bool) {
	rest, ok := strings.CutPrefix(meta[StatusMeta], "unavailable")
	if !ok {
		return "", false
	}
	if rest == "" {
		return "", true
	}
	if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " "), "|"); !ok {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// Unavailable reports whether b is bound but unavailable (StatusMeta),
// and returns the reason. A name not bound yet, or withdrawn, is not.
func (b *Binding) Unavailable() (reason string, ok bool) {
	if b.Status == 0 || b.Status == http.StatusGone {
		return "", false
	}
	return UnavailableMeta(b.Meta)
}

// Unexported reports whether meta keeps its identifier out of OAI-PMH
// (ExportMeta "no").
func Unexported(meta map[string]string) bool {
	return strings.EqualFold(strings.TrimSpace(meta[ExportMeta]), "no")
}
