package ark

import "strings"

// placeholderPrefix starts every placeholder this handler provides.
const placeholderPrefix = "http.ark."

// templatePlaceholders are the {http.ark.*} names a template's target may
// use: all but target and outcome, which the expansion itself decides.
var templatePlaceholders = []string{"id", "naan", "name", "shoulder", "blade", "suffix", "via"}

// arkVars provides the {http.ark.*} placeholders of one request, computed
// from its resolution only when a template, a later handler or a log asks
// for one.
type arkVars struct {
	res    *resolution
	target string // set once the target is built
}

// get answers one placeholder; it is a caddy.ReplacerFunc.
func (v *arkVars) get(key string) (any, bool) {
	name, ok := strings.CutPrefix(key, placeholderPrefix)
	if !ok {
		return nil, false
	}
	res := v.res
	switch name {
	case "outcome":
		return res.outcome.String(), true
	case "target":
		return v.target, true
	case "id":
		return res.key, true
	case "suffix":
		return res.suffix, true
	case "via":
		return res.via, true
	}
	if !res.isARK {
		return nil, false
	}
	switch name {
	case "naan":
		return res.ark.NAAN(), true
	case "name":
		return res.ark.Name(), true
	case "shoulder":
		return res.shoulder, true
	case "blade":
		return res.ark.Name()[len(res.shoulder):], true
	}
	return nil, false
}
