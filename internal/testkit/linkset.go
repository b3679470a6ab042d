package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
)

// LinkContext is one link context object of a linkset: its anchor and
// its targets by relation type.
type LinkContext struct {
	Anchor string
	Links  map[string][]map[string]any
}

// ParseLinksetJSON reads an application/linkset+json document by the
// rules of RFC 9264, section 4.2, refusing what they do not allow: a JSON
// object whose only member is "linkset", an array of link context
// objects; each has an "anchor" that is an absolute URI, and its other
// members are relation types (a registered name or an absolute URI), each
// an array of target objects; a target object has an "href" URI-reference,
// and its attributes are strings, except "hreflang" and the "*"-suffixed
// internationalized ones, which are arrays.
func ParseLinksetJSON(body []byte) ([]LinkContext, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	raw, ok := doc["linkset"]
	if !ok || len(doc) != 1 {
		return nil, fmt.Errorf("want an object with the one member \"linkset\", got %d members", len(doc))
	}
	var contexts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &contexts); err != nil {
		return nil, fmt.Errorf("linkset is not an array of objects: %v", err)
	}
	var out []LinkContext
	for i, c := range contexts {
		lc := LinkContext{Links: map[string][]map[string]any{}}
		if err := json.Unmarshal(c["anchor"], &lc.Anchor); err != nil {
			return nil, fmt.Errorf("context %d: anchor is not a string: %v", i, err)
		}
		if u, err := url.Parse(lc.Anchor); err != nil || !u.IsAbs() {
			return nil, fmt.Errorf("context %d: anchor %q is not an absolute URI", i, lc.Anchor)
		}
		for rel, v := range c {
			if rel == "anchor" {
				continue
			}
			if !isRelType(rel) {
				return nil, fmt.Errorf("context %d: %q is not a relation type", i, rel)
			}
			var targets []map[string]any
			if err := json.Unmarshal(v, &targets); err != nil {
				return nil, fmt.Errorf("context %d: %s is not an array of target objects: %v", i, rel, err)
			}
			if len(targets) == 0 {
				return nil, fmt.Errorf("context %d: %s has no target", i, rel)
			}
			for _, t := range targets {
				if err := checkTarget(t); err != nil {
					return nil, fmt.Errorf("context %d: %s: %v", i, rel, err)
				}
			}
			lc.Links[rel] = targets
		}
		out = append(out, lc)
	}
	return out, nil
}

// checkTarget checks a target object's href and attributes.
func checkTarget(t map[string]any) error {
	href, ok := t["href"].(string)
	if !ok {
		return fmt.Errorf("a target without a string href")
	}
	if _, err := url.Parse(href); err != nil {
		return fmt.Errorf("href %q: %v", href, err)
	}
	for name, v := range t {
		switch {
		case name == "href":
		case name == "hreflang" || (len(name) > 1 && name[len(name)-1] == '*'):
			if _, ok := v.([]any); !ok {
				return fmt.Errorf("attribute %s is not an array", name)
			}
		default:
			if _, ok := v.(string); !ok {
				return fmt.Errorf("attribute %s is not a string", name)
			}
		}
	}
	return nil
}

// isRelType reports whether rel is a registered relation type's name
// (lower-case letter, then letters, digits, ".", "-") or an absolute URI.
func isRelType(rel string) bool {
	if u, err := url.Parse(rel); err == nil && u.IsAbs() {
		return true
	}
	for i, c := range rel {
		switch {
		case 'a' <= c && c <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return rel != ""
}
