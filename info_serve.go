package ark

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// serveInfo answers a request for an ARK with the ?info, ? or ?? inflection:
// metadata about the identifier it resolves to (exactly, through an
// ancestor or through a template), or the policy of the NAAN or shoulder
// it names. Anything else keeps the answer it would have had (400, 404,
// 414), since there is nothing here to describe. It returns the outcome of
// the answer it gave.
func (h *Handler) serveInfo(w http.ResponseWriter, r *http.Request, rs *resolver, core string, res *resolution, repl *caddy.Replacer) (outcome, error) {
	if res.key == "" {
		naan, ok := bareNAAN(core)
		if !ok {
			return res.outcome, h.refuse(w, r, res.status, res.reason, res.key)
		}
		if pol := rs.policies.exact(naan, ""); pol != nil {
			return outcomeMetadata, h.writeInfo(w, r, newPolicyRecord(h.self(r), core, pol))
		}
		return outcomeNotFound, h.refuse(w, r, http.StatusNotFound, policyPrefix(naan, "")+" has no policy here", "")
	}
	if res.how != "exact" && res.ark.Qualifier() == "" {
		if pol := rs.policies.exact(res.ark.NAAN(), res.ark.Name()); pol != nil {
			return outcomeMetadata, h.writeInfo(w, r, newPolicyRecord(h.self(r), core, pol))
		}
	}
	if res.entry == nil && res.tmpl == nil {
		return res.outcome, h.refuse(w, r, res.status, res.reason, res.key)
	}
	target := res.target
	if res.tmpl != nil {
		var err error
		if target, err = res.buildTarget(repl, ""); err != nil {
			return outcomeInvalid, h.refuse(w, r, http.StatusBadRequest, res.key+": "+err.Error(), res.key)
		}
	}
	return outcomeMetadata, h.writeInfo(w, r, newRecord(h.self(r), core, res, target, rs.policies.covering(res.ark)))
}

// bareNAAN returns the NAAN that core names alone ("ark:12345",
// "ark:/12-345/"), which is not an ARK.
func bareNAAN(core string) (string, bool) {
	naan, shoulder, err := normalize.ParsePrefix(strings.TrimSuffix(core, "/"))
	return naan, err == nil && shoulder == ""
}

// writeInfo writes rec in the format the request's Accept header prefers,
// with a Link to the identifier it describes.
func (h *Handler) writeInfo(w http.ResponseWriter, r *http.Request, rec *infoRecord) error {
	var body []byte
	format := negotiate(r.Header.Values("Accept"))
	switch format {
	case formatJSON:
		data, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		body = append(escapeInvisibleJSON(data), '\n')
	case formatHTML:
		page, err := renderInfoPage(h.infoPage, rec)
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		body = page
	default:
		body = []byte(anvl(rec))
	}
	hdr := w.Header()
	hdr.Set("Content-Type", contentTypes[format])
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Add("Vary", "Accept")
	hdr.Add("Link", "<"+rec.URL+`>; rel="describes"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}
