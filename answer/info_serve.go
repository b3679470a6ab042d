package answer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/visible"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/negotiate"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// infoAnswer works out the answer to a request for an ARK with the ?info,
// ? or ?? inflection: metadata about the identifier it resolves to
// (exactly, through an ancestor or through a template), or the policy of
// the NAAN or shoulder it names. Anything else keeps the answer it would
// have had (400, 404, 414), since there is nothing here to describe.
func (an *Answerer) infoAnswer(r *http.Request, rs *resolve.Resolver, repl *caddy.Replacer, core string, res *resolve.Resolution) reply {
	refuse := func(out resolve.Outcome, status int, reason, key string) reply {
		a := refusal(status, reason, key)
		a.out = out
		return a
	}
	answer := func(rec *info.Record) reply {
		return reply{kind: replyInfo, status: http.StatusOK, out: resolve.OutcomeMetadata, record: rec}
	}
	if res.Key == "" {
		naan, ok := bareNAAN(core)
		if !ok {
			return refuse(res.Outcome, res.Status, res.Reason, res.Key)
		}
		if pol := rs.Policies().Exact(naan, ""); pol != nil {
			return answer(info.NewPolicyRecord(an.self(r), core, pol))
		}
		return refuse(resolve.OutcomeNotFound, http.StatusNotFound, resolve.PolicyPrefix(naan, "")+" has no policy here", "")
	}
	if res.How != "exact" && res.Ark.Qualifier() == "" {
		if pol := rs.Policies().Exact(res.Ark.NAAN(), res.Ark.Name()); pol != nil {
			return answer(info.NewPolicyRecord(an.self(r), core, pol))
		}
	}
	if res.Entry == nil && res.Tmpl == nil {
		return refuse(res.Outcome, res.Status, res.Reason, res.Key)
	}
	target, err := an.infoTarget(res, repl)
	if err != nil {
		return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, res.Key+": "+err.Error(), res.Key)
	}
	at := an.self(r)
	rec := info.NewRecord(at, core, res, target, rs.Policies().Covering(res.Ark))
	an.addTargetCheck(r.Context(), rec, res)
	a := answer(rec)
	a.describe = func() (*signpost.Subject, *metadata.Record) { return an.describe(at, res, target) }
	return a
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
func (an *Answerer) writeInfo(w http.ResponseWriter, r *http.Request, rec *info.Record, describe func() (*signpost.Subject, *metadata.Record)) error {
	hdr := w.Header()
	hdr.Set("Access-Control-Allow-Origin", "*")
	addVary(hdr, nil)
	accept := r.Header.Values("Accept")
	format := info.Negotiate(accept)
	if an.machine.negotiate {
		offers := infoTypes
		if describe != nil {
			offers = an.machine.infoOffers
		}
		i := negotiate.Choose(accept, offers)
		switch {
		case i < 0:
			return an.refuse(w, r, http.StatusNotAcceptable, rec.Normalized+"?info is available as "+strings.Join(offers, ", ")+"; Accept allows none of them", rec.Normalized)
		case i >= len(infoTypes):
			s, m := describe()
			reply, err := renderMetadata(an.machine.namedFormat[i-len(infoTypes)], offers[i], negotiate.Params(accept, offers[i]), s, m)
			if errors.As(err, new(caddyhttp.HandlerError)) {
				return err
			}
			if err != nil {
				return an.refuse(w, r, http.StatusBadRequest, err.Error(), rec.Normalized)
			}
			return an.writeMetadata(w, reply)
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
		body = append(visible.EscapeJSON(data), '\n')
	case info.FormatHTML:
		page, err := info.RenderPage(an.infoPage, rec)
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

// addTargetCheck adds to rec what the checks of the target of res found,
// for an identifier that has its own checkable target: the store's check
// of it when there is one, else unchecked when this site checks its
// targets. A store that does not answer leaves it out: ?info still
// answers.
func (an *Answerer) addTargetCheck(ctx context.Context, rec *info.Record, res *resolve.Resolution) {
	if res.How != "exact" || res.Entry == nil || !targets.Checkable(res.Entry.Target, res.Entry.Status) || an.store == nil {
		return
	}
	c, err := targets.Lookup(ctx, an.store, res.Entry.Target)
	if err != nil || c == nil && !an.targetsChecked {
		return
	}
	rec.SetTargetCheck(c)
}
