package ark

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/visible"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// infoAnswer works out the answer to a request for an ARK with the ?info,
// ? or ?? inflection: metadata about the identifier it resolves to
// (exactly, through an ancestor or through a template), or the policy of
// the NAAN or shoulder it names. Anything else keeps the answer it would
// have had (400, 404, 414), since there is nothing here to describe.
func (h *Handler) infoAnswer(r *http.Request, rs *resolve.Resolver, repl *caddy.Replacer, core string, res *resolve.Resolution) reply {
	refuse := func(out resolve.Outcome, status int, reason, key string) reply {
		a := refusal(status, reason, key)
		a.out = out
		return a
	}
	metadata := func(rec *info.Record) reply {
		return reply{kind: replyInfo, status: http.StatusOK, out: resolve.OutcomeMetadata, record: rec}
	}
	if res.Key == "" {
		naan, ok := bareNAAN(core)
		if !ok {
			return refuse(res.Outcome, res.Status, res.Reason, res.Key)
		}
		if pol := rs.Policies().Exact(naan, ""); pol != nil {
			return metadata(info.NewPolicyRecord(h.self(r), core, pol))
		}
		return refuse(resolve.OutcomeNotFound, http.StatusNotFound, resolve.PolicyPrefix(naan, "")+" has no policy here", "")
	}
	if res.How != "exact" && res.Ark.Qualifier() == "" {
		if pol := rs.Policies().Exact(res.Ark.NAAN(), res.Ark.Name()); pol != nil {
			return metadata(info.NewPolicyRecord(h.self(r), core, pol))
		}
	}
	if res.Entry == nil && res.Tmpl == nil {
		return refuse(res.Outcome, res.Status, res.Reason, res.Key)
	}
	target := res.Target
	if res.Tmpl != nil {
		var err error
		if target, err = buildTarget(res, repl, ""); err != nil {
			return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, res.Key+": "+err.Error(), res.Key)
		}
	}
	rec := info.NewRecord(h.self(r), core, res, target, rs.Policies().Covering(res.Ark))
	h.addTargetCheck(r.Context(), rec, res)
	return metadata(rec)
}

// bareNAAN returns the NAAN that core names alone ("ark:12345",
// "ark:/12-345/"), which is not an ARK.
func bareNAAN(core string) (string, bool) {
	naan, shoulder, err := normalize.ParsePrefix(strings.TrimSuffix(core, "/"))
	return naan, err == nil && shoulder == ""
}

// writeInfo writes rec in the format the request's Accept header prefers,
// with a Link to the identifier it describes.
func (h *Handler) writeInfo(w http.ResponseWriter, r *http.Request, rec *info.Record) error {
	var body []byte
	format := info.Negotiate(r.Header.Values("Accept"))
	switch format {
	case info.FormatJSON:
		data, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		body = append(visible.EscapeJSON(data), '\n')
	case info.FormatHTML:
		page, err := info.RenderPage(h.infoPage, rec)
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		body = page
	default:
		body = []byte(info.ANVL(rec))
	}
	hdr := w.Header()
	hdr.Set("Content-Type", info.ContentTypes[format])
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Add("Vary", "Accept")
	hdr.Add("Link", "<"+rec.URL+`>; rel="describes"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}
