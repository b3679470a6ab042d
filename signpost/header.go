package signpost

import "slices"

// MaxHeaderBytes is the default budget of a Link header: a resolved
// answer's links stay under 1 KiB, so that they cost little on every
// answer and fit the header limits of proxies; the linkset has them all.
const MaxHeaderBytes = 1024

// Header returns the Link header of the identifier's answers (Level 1),
// one link a field line: its links, less the describedby links of
// formats not named in advertised, in Links' order for as long as their
// field lines ("Link: " and CRLF included) fit in budget bytes. cite-as
// and the linksets are always there: the linkset holds every link that
// did not fit. Its capacity is its length, so that appending to it
// copies it.
func (s *Subject) Header(advertised []string, budget int) []string {
	var values []string
	size := 0
	for i, l := range s.Links() {
		if l.Rel == "describedby" && l.Type != "text/plain" && !s.advertises(advertised, l.Href) {
			continue
		}
		v := string(l.appendValue(nil, ""))
		if size+len("Link: \r\n")+len(v) > budget && i >= 3 {
			continue
		}
		size += len("Link: \r\n") + len(v)
		values = append(values, v)
	}
	return slices.Clip(values)
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
