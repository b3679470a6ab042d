package metadata

import (
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
)

// Creator is one creator of the referent.
type Creator struct {
	// Name is the name as written: "Curie, Marie" or "Example Museum".
	Name string
	// Family and Given are the parts of a name written "Family, Given";
	// both empty for a name written otherwise.
	Family, Given string
	// URI identifies the creator: an absolute http(s) URI, such as an
	// ORCID ("https://orcid.org/0000-0002-1825-0097"), or the URL on the
	// site of an ARK or URN (an authority record); "" when none is given,
	// or when what was given is none of these.
	URI string
}

// Personal reports whether the name was written "Family, Given": the only
// sign, short of an ORCID, that a creator is a person.
func (c Creator) Personal() bool { return c.Family != "" }

// ORCID returns the creator's ORCID iD ("0000-0002-1825-0097") when its
// URI is an ORCID, else "".
func (c Creator) ORCID() string {
	for _, prefix := range []string{"https://orcid.org/", "http://orcid.org/"} {
		if id, ok := strings.CutPrefix(c.URI, prefix); ok {
			return id
		}
	}
	return ""
}

// ParseCreators reads the who syntax: creators separated by ";", each
// "Family, Given" or a name, optionally followed by a URI in angle
// brackets: "Curie, Marie <https://orcid.org/0000-0002-1825-0097>; Example
// Museum". A bare ORCID iD in the brackets ("<0000-0002-1825-0097>") is
// made its https://orcid.org/ URI, an ARK or URN ("<ark:/12345/p7x>", an
// authority record) its URL under resolver. Any other URI (another
// scheme, which a reader might follow, such as javascript:; a relative
// reference; an http(s) URL without a host or with characters an IRI
// cannot hold) is dropped: the creator is its name alone.
func ParseCreators(v, resolver string) []Creator {
	var out []Creator
	for _, part := range splitList(v) {
		c := Creator{Name: part}
		if open := strings.LastIndexByte(part, '<'); open >= 0 && strings.HasSuffix(part, ">") {
			c.Name, c.URI = strings.TrimSpace(part[:open]), creatorURI(strings.TrimSpace(part[open+1:len(part)-1]), resolver)
		}
		if c.Name == "" {
			continue
		}
		if family, given, ok := strings.Cut(c.Name, ","); ok && strings.TrimSpace(family) != "" && strings.TrimSpace(given) != "" {
			c.Family, c.Given = strings.TrimSpace(family), strings.TrimSpace(given)
		}
		out = append(out, c)
	}
	return out
}

// isORCID reports whether s is a bare ORCID iD: four groups of four digits
// separated by "-", the last character possibly "X".
func isORCID(s string) bool {
	if len(s) != 19 {
		return false
	}
	for i := range len(s) {
		switch {
		case i%5 == 4:
			if s[i] != '-' {
				return false
			}
		case i == 18 && s[i] == 'X':
		case s[i] < '0' || s[i] > '9':
			return false
		}
	}
	return true
}

// creatorURI is the URI v identifies a creator by: v itself when it is an
// absolute http(s) URI, a bare ORCID iD's https://orcid.org/ URI, an ARK's
// or URN's URL under resolver; "" for anything else.
func creatorURI(v, resolver string) string {
	lower := strings.ToLower(v)
	switch {
	case isORCID(v):
		return "https://orcid.org/" + v
	case strings.HasPrefix(lower, "ark:") || strings.HasPrefix(lower, "urn:"):
		if key, err := normalize.Key(v); err == nil && resolver != "" {
			return resolver + key
		}
		return ""
	}
	if strings.ContainsFunc(v, notInIRI) {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	return v
}

// notInIRI reports whether c may not stand in an IRI as it is (RFC 3987;
// Turtle's IRIREF): space and controls, and <>"{}|\^`.
func notInIRI(c rune) bool {
	return c <= ' ' || c >= 0x7f && c <= 0x9f || strings.ContainsRune(`<>"{}|\^`+"`", c)
}
