package metadata

import (
	"net/http"
	"strings"
)

// Unavailable is the code DataCite and ERC write for a required value that
// is not available.
const Unavailable = "(:unav)"

// Identifier is what the resolver knows of an identifier, apart from its
// metadata.
type Identifier struct {
	// ID is the normalized identifier: "ark:12345/x5wf6789" or
	// "urn:nbn:de:101-1234".
	ID string
	// URL is its canonical URL on this site, e.g.
	// "https://ark.example.org/ark:12345/x5wf6789".
	URL string
	// Resolver is the URL under which the site resolves identifiers,
	// ending in "/": an ARK or URN successor is appended to it.
	Resolver string
	// Target is where the identifier resolves: an absolute URL, or "" when
	// withdrawn or served in place.
	Target string
	// Status is the HTTP status the identifier answers with: 200, 302,
	// 303, 307, or 410 when withdrawn.
	Status int
	// Reason is the resolver's own statement of a withdrawal, used when
	// the metadata has no reason.
	Reason string
}

// Defaults are the meta values a NAAN or shoulder sets for its entries
// (the Caddyfile's publisher, license, …), applied under each entry's own
// meta: a name the entry gives in any of its spellings is the entry's.
type Defaults map[string]string

// Record is the description of an identifier's referent that every format
// writes. The zero value of a field means unknown.
type Record struct {
	// ID is the normalized identifier.
	ID string
	// Scheme is "ARK" or "URN", as DataCite's identifierType names it.
	Scheme string
	// URL is the identifier's canonical URL: what a citation cites.
	URL string
	// Target is where the identifier resolves, when it is an absolute URL.
	Target string
	// Status is the HTTP status the identifier answers with.
	Status int
	// Creators are the creators, in order (who).
	Creators []Creator
	// Title is the title (what).
	Title string
	// Date is the date of publication or creation (when).
	Date Date
	// Where is the referent's location, when the meta gives one.
	Where string
	// Type is the DataCite resource type (type).
	Type ResourceType
	// License is the license (license).
	License License
	// Publisher is the publisher (publisher, else the organization).
	Publisher string
	// Description is the abstract (description).
	Description string
	// Language is the BCP 47 language tag (language).
	Language string
	// Subjects are the keywords (subject).
	Subjects []string
	// Items are the content resources (item).
	Items []Item
	// Withdrawal is set when the identifier is withdrawn (status 410).
	Withdrawal *Withdrawal
	// Meta is the entry's meta over the defaults: every key, documented or
	// not, for formats that show them all (ERC).
	Meta map[string]string
}

// New builds the record of id from the entry's meta, the defaults of its
// NAAN or shoulder, and organization, the site's organization (the
// default publisher). Any of them may be empty; meta and defaults are not
// modified.
func New(id Identifier, meta map[string]string, defaults Defaults, organization string) *Record {
	merged := make(map[string]string, len(meta)+len(defaults))
	for k, v := range defaults {
		merged[k] = v
	}
	for k, v := range meta {
		merged[k] = v
	}
	read := withDataCiteXML(meta)
	get := func(name string) string {
		if v := lookup(read, name); v != "" {
			return v
		}
		return lookup(defaults, name)
	}
	r := &Record{ID: id.ID, Scheme: scheme(id.ID), URL: id.URL, Target: httpURL(id.Target), Status: id.Status, Meta: merged,
		Creators: ParseCreators(get(KeyWho), id.Resolver), Title: get(KeyWhat), Date: ParseDate(get(KeyWhen)), Where: get(KeyWhere),
		Type: ParseResourceType(get(KeyType)), License: ParseLicense(get(KeyLicense)), Publisher: get(KeyPublisher),
		Description: get(KeyDescription), Language: ParseLanguage(get(KeyLanguage)), Subjects: splitList(get(KeySubject)), Items: ParseItems(get(KeyItem))}
	if r.Publisher == "" {
		r.Publisher = clean(organization)
	}
	if id.Status == http.StatusGone {
		r.Withdrawal = &Withdrawal{Date: ParseDate(get(KeyWithdrawn)), Reason: get(KeyReason),
			Successor: ParseSuccessor(get(KeySuccessor), id.Resolver)}
		if r.Withdrawal.Reason == "" {
			r.Withdrawal.Reason = clean(id.Reason)
		}
	}
	return r
}

// scheme returns DataCite's identifierType for a normalized identifier.
func scheme(id string) string {
	if strings.HasPrefix(id, "urn:") {
		return "URN"
	}
	return "ARK"
}

// Withdrawn reports whether the record is a tombstone.
func (r *Record) Withdrawn() bool { return r.Withdrawal != nil }

// clean trims a value, makes the line breaks that are control
// characters (VT, FF, NEL) line feeds, drops its other control characters
// but tab, line feed and carriage return (XML 1.0 cannot hold them, and
// no format gives them a meaning), and reads an ERC code for a missing
// value ("(:unav)", "(:unkn) anonymous", …) as no value.
func clean(v string) string {
	if strings.ContainsFunc(v, isControl) {
		v = strings.Map(func(c rune) rune {
			switch {
			case c == '\v' || c == '\f' || c == '\u0085':
				return '\n'
			case isControl(c):
				return -1
			}
			return c
		}, v)
	}
	v = strings.TrimSpace(v)
	if isERCCode(v) {
		return ""
	}
	return v
}

// isControl reports whether c is a C0 or C1 control character or DEL,
// other than tab, line feed and carriage return.
func isControl(c rune) bool {
	return c < ' ' && c != '\t' && c != '\n' && c != '\r' || c >= 0x7f && c <= 0x9f
}

// isERCCode reports whether v starts with an ERC code for a missing value:
// "(:" letters ")".
func isERCCode(v string) bool {
	if !strings.HasPrefix(v, "(:") {
		return false
	}
	end := strings.IndexByte(v, ')')
	if end < 3 {
		return false
	}
	for _, c := range v[2:end] {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// splitList splits a ";"-separated value into its trimmed, non-empty parts.
func splitList(v string) []string {
	var out []string
	for part := range strings.SplitSeq(v, ";") {
		if part = clean(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// httpURL returns s when it is an absolute http(s) URL, else "".
func httpURL(s string) string {
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		return s
	}
	return ""
}
