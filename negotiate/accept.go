package negotiate

import "strings"

// mediaRange is one element of an Accept header: a media range, its
// quality in thousandths, and its other parameters as written.
type mediaRange struct {
	typ, subtype string // lower-case not guaranteed: compare with EqualFold
	q            int    // 0 to 1000
	params       string // the parameters after the range, q and accept-ext excluded
}

// ranges calls yield with each media range of the Accept header values,
// in order, skipping empty and malformed elements, until yield returns
// false.
func ranges(accept []string, yield func(mediaRange) bool) {
	for _, header := range accept {
		for header != "" {
			var item string
			item, header = cutUnquoted(header, ',')
			r, ok := parseRange(item)
			if ok && !yield(r) {
				return
			}
		}
	}
}

// cutUnquoted returns the part of s before its first sep that is not
// inside a quoted string (a parameter's value may be quoted), and the
// rest after it.
func cutUnquoted(s string, sep byte) (before, rest string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// parseRange reads one media range with its parameters; ok is false when
// it is not type/subtype.
func parseRange(item string) (r mediaRange, ok bool) {
	mt, params, _ := strings.Cut(item, ";")
	typ, subtype, found := strings.Cut(strings.TrimSpace(mt), "/")
	if !found || typ == "" || subtype == "" || (typ == "*" && subtype != "*") {
		return r, false
	}
	r.typ, r.subtype, r.q = typ, subtype, 1000
	for rest := params; rest != ""; {
		p, next := cutUnquoted(rest, ';')
		name, value, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			// What follows q is accept-ext, not the range's.
			r.q = parseQ(strings.TrimSpace(value))
			params = params[:len(params)-len(rest)]
			break
		}
		rest = next
	}
	r.params = strings.Trim(params, " \t;")
	return r, true
}

// parseQ reads a qvalue (RFC 9110: "0" ["." 0*3DIGIT] or "1" ["." 0*3"0"])
// in thousandths; anything else counts as 0, refusing rather than guessing.
func parseQ(s string) int {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0
	}
	q := int(s[0]-'0') * 1000
	if len(s) == 1 {
		return q
	}
	if s[1] != '.' {
		return 0
	}
	scale := 100
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		q += int(s[i]-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return 0
	}
	return q
}

// specificity says how closely r matches mediaType ("type/subtype"): 3 for
// the type itself, 2 for type/*, 1 for */*, 0 for no match.
func (r mediaRange) specificity(mediaType string) int {
	switch {
	case r.typ == "*":
		return 1
	case len(mediaType) <= len(r.typ) || mediaType[len(r.typ)] != '/' || !strings.EqualFold(mediaType[:len(r.typ)], r.typ):
		return 0
	case r.subtype == "*":
		return 2
	case r.names(mediaType):
		return 3
	}
	return 0
}

// names reports whether r is exactly mediaType, in any case: lengths
// first, since most comparisons are between types of different lengths.
func (r mediaRange) names(mediaType string) bool {
	return len(mediaType) == len(r.typ)+1+len(r.subtype) && strings.EqualFold(mediaType[len(r.typ)+1:], r.subtype) &&
		mediaType[len(r.typ)] == '/' && strings.EqualFold(mediaType[:len(r.typ)], r.typ)
}
