package metadata

import "strings"

// Creator is one creator of the referent.
type Creator struct {
	// Name is the name as written: "Curie, Marie" or "Example Museum".
	Name string
	// Family and Given are the parts of a name written "Family, Given";
	// both empty for a name written otherwise.
	Family, Given string
	// URI identifies the creator, such as an ORCID
	// ("https://orcid.org/0000-0002-1825-0097"); "" when none is given.
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
// made its https://orcid.org/ URI.
func ParseCreators(v string) []Creator {
	var out []Creator
	for _, part := range splitList(v) {
		c := Creator{Name: part}
		if open := strings.LastIndexByte(part, '<'); open >= 0 && strings.HasSuffix(part, ">") {
			c.Name, c.URI = strings.TrimSpace(part[:open]), strings.TrimSpace(part[open+1:len(part)-1])
			if isORCID(c.URI) {
				c.URI = "https://orcid.org/" + c.URI
			}
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
