package answer

import (
	"errors"
	"net/http"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// refuse answers a request for an identifier with status and a one-line
// reason; key is the normalized identifier ("" when the request is not
// one). When the site has a handle_errors block, the refusal is returned as
// a Caddy error for it to answer, with the status in
// {http.error.status_code} and the reason in {http.error.message}.
// Otherwise a client that prefers text/html gets a small page, and every
// other client the reason as one line of text/plain.
func (an *Answerer) refuse(w http.ResponseWriter, r *http.Request, status int, reason, key string) error {
	return an.refuseResolved(w, r, status, reason, key, nil)
}

// refuseResolved is refuse for an answer to res, which may be nil: the
// page of a withdrawn identifier shows its tombstone.
func (an *Answerer) refuseResolved(w http.ResponseWriter, r *http.Request, status int, reason, key string, res *resolve.Resolution) error {
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv.Errors != nil && len(srv.Errors.Routes) > 0 {
		return caddyhttp.Error(status, errors.New(reason))
	}
	addVary(w.Header(), nil)
	if info.Negotiate(r.Header.Values("Accept")) != info.FormatHTML {
		return info.WriteRefusal(w, status, reason)
	}
	at := an.self(r)
	rec := info.RefusalRecord{Status: status, StatusText: http.StatusText(status), Reason: reason, ID: key,
		Home: at.Base + "/", Organization: an.organization}
	if status == http.StatusGone && key != "" {
		rec.InfoURL, rec.Tombstone = at.InfoURL(key), info.NewTombstone(at, res)
	}
	if err := info.WriteRefusalPage(w, rec); err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	return nil
}
