package ark

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/negotiate"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// serveInfo answers a request for an ARK with the ?info, ? or ?? inflection:
// metadata about the identifier it resolves to (exactly, through an
// ancestor or through a template), or the policy of the NAAN or shoulder
// it names. Anything else keeps the answer it would have had (400, 404,
// 414), since there is nothing here to describe. It returns the outcome of
// the answer it gave.
func (h *Handler) serveInfo(w http.ResponseWriter, r *http.Request, rs *resolve.Resolver, core string, res *resolve.Resolution, repl *caddy.Replacer) (resolve.Outcome, error) {
	if res.Key == "" {
		naan, ok := bareNAAN(core)
		if !ok {
			return res.Outcome, h.refuse(w, r, res.Status, res.Reason, res.Key)
		}
		if pol := rs.Policies().Exact(naan, ""); pol != nil {
			return resolve.OutcomeMetadata, h.writeInfo(w, r, info.NewPolicyRecord(h.self(r), core, pol), nil)
		}
		return resolve.OutcomeNotFound, h.refuse(w, r, http.StatusNotFound, resolve.PolicyPrefix(naan, "")+" has no policy here", "")
	}
	if res.How != "exact" && res.Ark.Qualifier() == "" {
		if pol := rs.Policies().Exact(res.Ark.NAAN(), res.Ark.Name()); pol != nil {
			return resolve.OutcomeMetadata, h.writeInfo(w, r, info.NewPolicyRecord(h.self(r), core, pol), nil)
		}
	}
	if res.Entry == nil && res.Tmpl == nil {
		return res.Outcome, h.refuse(w, r, res.Status, res.Reason, res.Key)
	}
	target, err := h.infoTarget(res, repl)
	if err != nil {
		return resolve.OutcomeInvalid, h.refuse(w, r, http.StatusBadRequest, res.Key+": "+err.Error(), res.Key)
	}
	at := h.self(r)
	rec := info.NewRecord(at, core, res, target, rs.Policies().Covering(res.Ark))
	h.addTargetCheck(r.Context(), rec, res)
	return resolve.OutcomeMetadata, h.writeInfo(w, r, rec, h.describer(at, res, target))
}

// bareNAAN returns the NAAN that core names alone ("ark:12345",
// "ark:/12-345/"), which is not an ARK.
func bareNAAN(core string) (string, bool) {
	naan, shoulder, err := normalize.ParsePrefix(strings.TrimSuffix(core, "/"))
	return naan, err == nil && shoulder == ""
}

// writeInfo writes rec in the format the request's Accept header prefers,
// with a Link to the identifier it describes: ERC, JSON or HTML, or, for
// an identifier that describe describes (nil for a NAAN or shoulder), one
// of its metadata formats; 406 listing them when Accept allows none.
// Without negotiation, ERC, JSON or HTML, text/plain when Accept allows
// none. Any origin may read it.
func (h *Handler) writeInfo(w http.ResponseWriter, r *http.Request, rec *info.Record, describe func() (*signpost.Subject, *metadata.Record)) error {
	hdr := w.Header()
	hdr.Set("Access-Control-Allow-Origin", "*")
	addVary(hdr)
	accept := r.Header.Values("Accept")
	format := info.Negotiate(accept)
	if h.machine.negotiate {
		offers := infoTypes
		if describe != nil {
			offers = h.machine.infoOffers
		}
		i := negotiate.Choose(accept, offers)
		switch {
		case i < 0:
			return h.refuse(w, r, http.StatusNotAcceptable, rec.Normalized+"?info is available as "+strings.Join(offers, ", ")+"; Accept allows none of them", rec.Normalized)
		case i >= len(infoTypes):
			s, m := describe()
			return h.writeMetadata(w, r, h.machine.namedFormat[i-len(infoTypes)], offers[i], negotiate.Params(accept, offers[i]), s, m)
		}
		format = info.Format(i)
	}
	var body []byte
	switch format {
	case info.FormatJSON:
		data, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		body = append(info.EscapeInvisibleJSON(data), '\n')
	case info.FormatHTML:
		page, err := info.RenderPage(h.infoPage, rec)
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		body = page
	default:
		body = []byte(info.ANVL(rec))
	}
	hdr.Set("Content-Type", info.ContentTypes[format])
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Add("Link", "<"+rec.URL+`>; rel="describes"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}
