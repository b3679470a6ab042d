package answer

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/resolve"
)

// arkVars provides the {http.ark.*} placeholders of one request, computed
// from its resolution only when a template, a later handler or a log asks
// for one.
type arkVars struct {
	res    *resolve.Resolution
	target string          // set once the target is built
	out    resolve.Outcome // the answer's outcome, once worked out
}

// get answers one placeholder; it is a caddy.ReplacerFunc.
func (v *arkVars) get(key string) (any, bool) {
	name, ok := strings.CutPrefix(key, resolve.PlaceholderPrefix)
	if !ok {
		return nil, false
	}
	res := v.res
	switch name {
	case "outcome":
		return v.out.String(), true
	case "target":
		return v.target, true
	case "id":
		return res.Key, true
	case "suffix":
		return res.Suffix, true
	case "via":
		return res.Via, true
	}
	if !res.IsARK {
		return nil, false
	}
	switch name {
	case "naan":
		return res.Ark.NAAN(), true
	case "name":
		return res.Ark.Name(), true
	case "shoulder":
		return res.Shoulder, true
	case "blade":
		return res.Ark.Name()[len(res.Shoulder):], true
	}
	return nil, false
}
