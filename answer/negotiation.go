package answer

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/negotiate"
	"github.com/caddy-ark/caddy-ark/resolve"
)

// infoTypes are the media types of ?info's own formats, in the order of
// info.Format: ERC in ANVL, JSON, HTML.
var infoTypes = []string{"text/plain", "application/json", "text/html"}

// metadataAsked returns the format that a request for a resolved ARK
// asks for rather than its target, by naming its media type in Accept
// above everything else it accepts, with that media range's parameters;
// nil when it names none (browsers, curl's */*, no Accept): the ARK then
// resolves as it would without negotiation.
func (an *Answerer) metadataAsked(r *http.Request, res *resolve.Resolution) (*metadataFormat, string) {
	if !an.machine.negotiate || !res.IsARK {
		return nil, ""
	}
	switch res.Outcome {
	case resolve.OutcomeInPlace, resolve.OutcomeRedirect, resolve.OutcomeRelated, resolve.OutcomeGone:
	default:
		return nil, ""
	}
	accept := r.Header["Accept"]
	i := negotiate.Named(accept, an.machine.namedTypes)
	if i < 0 {
		return nil, ""
	}
	return an.machine.namedFormat[i], negotiate.Params(accept, an.machine.namedTypes[i])
}

// metadataRedirect answers a request for the resolved ARK res that asks
// for its metadata in format f by Accept with a 303 to the format's own
// URL, as DOI content negotiation does: what is there is about the
// identifier, not the identifier's referent, and each format's URL is
// cacheable on its own. The answer carries the identifier's links and
// Vary: Accept, and any origin may read it.
func (an *Answerer) metadataRedirect(r *http.Request, core string, res *resolve.Resolution, f *metadataFormat, params string) reply {
	return reply{kind: replyRedirect, status: http.StatusSeeOther, core: core, res: res, out: resolve.OutcomeMetadata,
		links: true, cors: true, location: an.self(r).IdentifierURL(res.Key) + "?info=" + f.Name + formatQuery(params)}
}

// formatQuery returns the parameters of a media range that a format reads
// (a citation's style and locale) as query parameters after "&", or "".
func formatQuery(params string) string {
	q := url.Values{}
	for _, name := range []string{"style", "locale"} {
		if v := negotiate.Param(params, name); v != "" {
			q.Set(name, v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "&" + q.Encode()
}

// formatParams returns the query parameters of a format's own URL
// ("?info=citation&style=apa") as media range parameters, as Accept would
// give them ("style=apa").
func formatParams(q url.Values) string {
	var parts []string
	for _, name := range []string{"style", "locale"} {
		if v := q.Get(name); v != "" {
			parts = append(parts, name+"="+quoteParam(v))
		}
	}
	return strings.Join(parts, "; ")
}

// quoteParam returns v as a parameter value: a quoted-string unless it is
// a token.
func quoteParam(v string) string {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
		}
	}
	return v
}

// formatRequested returns the format of a request for an ARK's metadata
// in one format ("?info=bibtex"), and the query it came with; ok is false
// for any other query ("?info=1" too), which goes to the target as before.
func formatRequested(u *url.URL) (f *metadataFormat, q url.Values, ok bool) {
	if !strings.HasPrefix(u.RawQuery, "info=") {
		return nil, nil, false
	}
	q, _ = url.ParseQuery(u.RawQuery) // what parses, even when the rest does not
	if f = formatNamed(q.Get("info")); f == nil {
		return nil, nil, false
	}
	return f, q, true
}
