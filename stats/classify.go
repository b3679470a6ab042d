package stats

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/resolve"
)

// event is one answer the handler gave: the resolution and the outcome
// of the answer (which differs from the resolution's when the request was
// refused after it).
type event struct {
	res *resolve.Resolution
	out resolve.Outcome
}

// assigned reports whether res found what the site assigns: a table
// entry or store binding (exactly or through an ancestor) or a template.
func assigned(res *resolve.Resolution) bool { return res.Entry != nil || res.Tmpl != nil }

// naanPrefix returns "ark:<naan>", the start of an ARK's key.
func naanPrefix(res *resolve.Resolution) string {
	return res.Key[:len("ark:")+len(res.Ark.NAAN())]
}

// shoulderOf returns the shoulder that a request for res counts under.
// Only what the site itself defines makes a shoulder, never what a client
// typed, so that the rows stay few: an assigned ARK counts under its
// template's shoulder or NAAN, or the shoulder (first-digit convention) of
// the entry or binding that answered it; an ARK of the site's that
// resolves to nothing under a configured shoulder (a minter's, a
// policy's) if one covers it, else under its NAAN; an assigned URN under
// its namespace ("urn:isbn"); anything else (invalid, foreign, unknown
// URNs) under "".
func (c *Collector) shoulderOf(res *resolve.Resolution) string {
	switch {
	case res.Key == "":
		return ""
	case res.IsARK && res.Tmpl != nil:
		return res.Via // the template's "ark:<naan>[/<shoulder>]"
	case res.IsARK && res.Entry != nil:
		if res.Shoulder == "" {
			return naanPrefix(res)
		}
		return res.Key[:len("ark:")+len(res.Ark.NAAN())+1+len(res.Shoulder)]
	case res.IsARK && c.ours(res.Ark.NAAN()):
		for _, sh := range c.shoulders {
			if strings.HasPrefix(res.Key, sh) && len(res.Key) > len(sh) {
				return sh
			}
		}
		return naanPrefix(res)
	case !res.IsARK && res.Entry != nil:
		if i := strings.IndexByte(res.Key[len("urn:"):], ':'); i >= 0 {
			return res.Key[:len("urn:")+i]
		}
	}
	return ""
}

// coarseShoulder is where a request counts once a window holds maxRows
// rows: its NAAN for an ARK of the site's, else "".
func (c *Collector) coarseShoulder(res *resolve.Resolution) string {
	if res.IsARK && res.Key != "" && (assigned(res) || c.ours(res.Ark.NAAN())) {
		return naanPrefix(res)
	}
	return ""
}

// topName returns the identifier that a request for res counts for among
// the most requested: the assigned identifier that answered it (the entry
// or binding, exact or an ancestor; for a template, the requested ARK
// without its qualifier), or "" when nothing assigned answered it.
func topName(res *resolve.Resolution, out resolve.Outcome) string {
	if !assigned(res) || out == resolve.OutcomeInvalid || out == resolve.OutcomeUnavailable || out == resolve.OutcomeNotFound {
		return ""
	}
	if res.Tmpl != nil {
		return res.Key[:len(res.Key)-len(res.Ark.Qualifier())]
	}
	return res.Via
}

// notFoundName returns the name that a request for res counts for in the
// not-found report, "" when it does not: an ARK of the site's that
// resolved to nothing (never assigned, minted and not bound, mistyped).
func (c *Collector) notFoundName(res *resolve.Resolution, out resolve.Outcome) string {
	if out != resolve.OutcomeNotFound || !res.IsARK || res.Key == "" || !c.ours(res.Ark.NAAN()) {
		return ""
	}
	return res.Key
}
