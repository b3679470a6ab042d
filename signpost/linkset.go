package signpost

import (
	"encoding/json"
	"slices"
)

// context is one link context object of a linkset: an anchor and its
// links grouped by relation type, the relations in order of first use.
type context struct {
	anchor string
	rels   []string
	links  map[string][]Link
}

func newContext(anchor string) *context {
	return &context{anchor: anchor, links: map[string][]Link{}}
}

func (c *context) add(l Link) {
	if _, ok := c.links[l.Rel]; !ok {
		c.rels = append(c.rels, l.Rel)
	}
	c.links[l.Rel] = append(c.links[l.Rel], l)
}

// contexts returns the linkset's link contexts (Level 2): the identifier
// with all of its links but "linkset", each metadata resource "describes"
// it, each item is part of its "collection".
func (s *Subject) contexts() []*context {
	self := newContext(s.URL)
	var others []*context
	for _, l := range s.Links() {
		switch l.Rel {
		case "linkset":
			continue
		case "describedby":
			c := newContext(l.Href)
			c.add(Link{Href: s.URL, Rel: "describes"})
			others = append(others, c)
		case "item":
			if !slices.ContainsFunc(others, func(c *context) bool { return c.anchor == l.Href }) {
				c := newContext(l.Href)
				c.add(Link{Href: s.URL, Rel: "collection"})
				others = append(others, c)
			}
		}
		self.add(l)
	}
	return append([]*context{self}, others...)
}

// LinksetJSONBody returns the identifier's linkset as
// application/linkset+json (RFC 9264, section 4.2).
func (s *Subject) LinksetJSONBody() []byte {
	b := []byte("{\"linkset\": [")
	for i, c := range s.contexts() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  {\"anchor\": "...)
		b = appendJSONString(b, c.anchor)
		for _, rel := range c.rels {
			b = append(b, ",\n   "...)
			b = appendJSONString(b, rel)
			b = append(b, ": ["...)
			for j, l := range c.links[rel] {
				if j > 0 {
					b = append(b, ", "...)
				}
				b = append(b, "{\"href\": "...)
				b = appendJSONString(b, l.Href)
				if l.Type != "" {
					b = append(b, ", \"type\": "...)
					b = appendJSONString(b, l.Type)
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "\n]}\n"...)
}

// LinksetTextBody returns the identifier's linkset as application/linkset
// (RFC 9264, section 4.1): link-values with their anchors, one a line.
func (s *Subject) LinksetTextBody() []byte {
	var b []byte
	for _, c := range s.contexts() {
		for _, rel := range c.rels {
			for _, l := range c.links[rel] {
				if len(b) > 0 {
					b = append(b, ",\n"...)
				}
				b = l.appendValue(b, c.anchor)
			}
		}
	}
	return append(b, '\n')
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
