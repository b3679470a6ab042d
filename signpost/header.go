package signpost

import "slices"

// MaxHeaderBytes is the default budget of a Link header: a resolved
// answer's links stay under 1 KiB, so that they cost little on every
// answer and fit the header limits of proxies; the linkset has them all.
const MaxHeaderBytes = 1024

// Header returns the Link header of the identifier's answers (Level 1)
// as one field line, its link-values separated by ", " (RFC 8288's list,
// as signposting.org writes it): its links, less the describedby links of
// formats not named in advertised, in Links' order for as long as the
// field line ("Link: " and CRLF included) fits in budget bytes. cite-as
// and the linksets are always there: the linkset holds every link that
// did not fit.
func (s *Subject) Header(advertised []string, budget int) []string {
	var value []byte
	size := len("Link: \r\n")
	for i, l := range s.Links() {
		if l.Rel == "describedby" && l.Type != "text/plain" && !s.advertises(advertised, l.Href) {
			continue
		}
		start := len(value)
		if start > 0 {
			value = append(value, ", "...)
		}
		value = l.appendValue(value, "")
		if size+len(value)-start > budget && i >= 3 {
			value = value[:start]
			continue
		}
		size += len(value) - start
	}
	return []string{string(value)}
}

// advertises reports whether the metadata URL href is that of a format
// named in advertised.
func (s *Subject) advertises(advertised []string, href string) bool {
	for _, f := range s.Formats {
		if s.MetadataURL(f) == href {
			return slices.Contains(advertised, f.Name)
		}
	}
	return false
}
