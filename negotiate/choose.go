package negotiate

import "strings"

// Choose returns the index in offers of the media type that accept, a
// request's Accept header values, prefers: the one of highest quality,
// the earlier offer on a tie. It is -1 when accept makes every offer
// unacceptable. Without Accept (or with only empty values) every type is
// acceptable, and the first offer is chosen.
func Choose(accept []string, offers []string) int {
	if absent(accept) {
		return 0
	}
	best, bestQ := -1, 0
	for i, o := range offers {
		if q := Quality(accept, o); q > bestQ {
			best, bestQ = i, q
		}
	}
	return best
}

// Quality returns the quality, in thousandths (0 to 1000), that accept
// gives mediaType: the q of the most specific media range matching it
// (the first of equally specific ones), 0 when none matches, 1000 when
// there is no Accept.
func Quality(accept []string, mediaType string) int {
	if absent(accept) {
		return 1000
	}
	q, specificity := 0, 0
	ranges(accept, func(r mediaRange) bool {
		if s := r.specificity(mediaType); s > specificity {
			q, specificity = r.q, s
		}
		return specificity < 3
	})
	return q
}

// Named returns the index in offers of the type that accept prefers by
// naming it, over anything else it accepts, and -1 when there is none:
// the offer of highest quality among those accept names as type/subtype
// (the earlier offer on a tie), when that quality is above that of every
// other type accept names and at least that of its wildcards (an explicit
// type beats a wildcard). It answers "does this client ask for one of
// these rather than for whatever the resource is?": browsers, "*/*", no
// Accept, and any Accept that names none of offers get -1.
func Named(accept []string, offers []string) int {
	best, bestQ, other, wildcard := -1, 0, 0, 0
	ranges(accept, func(r mediaRange) bool {
		if r.subtype == "*" {
			wildcard = max(wildcard, r.q)
			return true
		}
		for i, o := range offers {
			if r.names(o) {
				if r.q > bestQ || (r.q == bestQ && best >= 0 && i < best) {
					best, bestQ = i, r.q
				}
				return true
			}
		}
		other = max(other, r.q)
		return true
	})
	if best < 0 || bestQ <= other || bestQ < wildcard {
		return -1
	}
	return best
}

// Params returns the parameters, as written and without q, of the most
// specific media range of accept that matches mediaType ("" when none):
// "style=apa" for "text/x-bibliography; style=apa".
func Params(accept []string, mediaType string) string {
	params, specificity := "", 0
	ranges(accept, func(r mediaRange) bool {
		if s := r.specificity(mediaType); s > specificity {
			params, specificity = r.params, s
		}
		return specificity < 3
	})
	return params
}

// Param returns the value of the parameter name in params (as Params
// returns them), unquoted, or "".
func Param(params, name string) string {
	for params != "" {
		var p string
		p, params = cutUnquoted(params, ';')
		n, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(n), name) {
			return unquote(strings.TrimSpace(v))
		}
	}
	return ""
}

// unquote returns the content of a quoted-string, or s when it is a token.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' && i+1 < len(s)-1 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// absent reports whether accept holds no media range at all: no Accept
// header, or only empty ones.
func absent(accept []string) bool {
	for _, v := range accept {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}
