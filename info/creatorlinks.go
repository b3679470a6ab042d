package info

import (
	"regexp"
	"strings"
)

// Span is a run of an element's value, linked when Link is set: the
// HTML page shows the ORCID and ROR identifiers of a who as links.
type Span struct {
	// Text is the run as written.
	Text string
	// Link is the URL it links to, or "".
	Link string
}

// The identifiers a who links, in the angle brackets after a name: a bare
// ORCID iD, an ORCID URI, or a ROR ID. Nothing else becomes a link, so
// that metadata can only link to these registries.
var (
	bareORCID = regexp.MustCompile(`^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$`)
	orcidURI  = regexp.MustCompile(`^https?://orcid\.org/([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])$`)
	rorURI    = regexp.MustCompile(`^https?://ror\.org/(0[a-z0-9]{6}[0-9]{2})$`)
)

// creatorSpans splits who, the creators as written ("Curie, Marie
// <0000-0002-1825-0097>; Example Museum <https://ror.org/05gq02987>"),
// into spans whose text is who, with each ORCID or ROR identifier in
// angle brackets linked to its https URL; nil when it has none.
func creatorSpans(who string) []Span {
	var spans []Span
	linked := false
	rest := who
	for {
		open := strings.IndexByte(rest, '<')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '>')
		if end < 0 {
			break
		}
		id := rest[open+1 : open+end]
		if link := creatorLink(strings.TrimSpace(id)); link != "" {
			spans = append(spans, Span{Text: rest[:open+1]}, Span{Text: id, Link: link})
			linked = true
		} else {
			spans = append(spans, Span{Text: rest[:open+end]})
		}
		rest = rest[open+end:]
	}
	if !linked {
		return nil
	}
	return append(spans, Span{Text: rest})
}

// creatorLink returns the https URL of an ORCID or ROR identifier, "" for
// anything else.
func creatorLink(id string) string {
	switch {
	case bareORCID.MatchString(id):
		return "https://orcid.org/" + id
	case orcidURI.MatchString(id):
		return "https://orcid.org/" + orcidURI.FindStringSubmatch(id)[1]
	case rorURI.MatchString(id):
		return "https://ror.org/" + rorURI.FindStringSubmatch(id)[1]
	}
	return ""
}
