package ark

import (
	"errors"
	"net/http"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// write writes a, or hands r to next: rewritten to its target for an
// in-place answer, as it came for a request that is not the handler's.
// An in-place target that turns out missing changes a's outcome.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, a *reply, next caddyhttp.Handler) error {
	switch a.kind {
	case replyPass:
		return next.ServeHTTP(w, r)
	case replyError:
		return a.err
	case replyReady:
		return writeReady(w, r, a.status, a.ready)
	case replyWellKnown:
		return writeWellKnown(w, a)
	case replyInfo:
		return h.writeInfo(w, r, a.record, a.describe)
	case replyMetadata:
		return h.writeMetadata(w, a.metadata)
	}
	hdr, values := w.Header(), a.headerValues()
	if a.links {
		h.addSignposting(hdr, values, h.self(r), a.res)
	}
	if a.cors {
		hdr["Access-Control-Allow-Origin"] = values.one("*")
	}
	switch a.kind {
	case replyRedirect:
		hdr["Location"] = values.one(a.location)
		w.WriteHeader(a.status)
		return nil
	case replyDirectory:
		return redirectToDirectory(w, h.self(r), a.res, a.query)
	case replyInPlace:
		return h.writeInPlace(w, r, a, next)
	}
	if a.allow != "" {
		hdr.Set("Allow", a.allow)
	}
	if a.retry {
		hdr.Set("Retry-After", resolve.RetryAfter)
	}
	return h.refuseResolved(w, r, a.status, a.reason, a.key, a.res)
}

// writeInPlace has next serve a's local target in place, and refuses with
// 404 when nothing is there.
func (h *Handler) writeInPlace(w http.ResponseWriter, r *http.Request, a *reply, next caddyhttp.Handler) error {
	rewrite(r, a.served)
	status, err := serveInPlace(w, r, next)
	if status != http.StatusNotFound && status != 0 {
		return err
	}
	a.out, a.room.vars.out = resolve.OutcomeMissing, resolve.OutcomeMissing
	if status == 0 {
		h.logs.Log("no next handler", zap.ErrorLevel, "no handler after ark served an in-place target: add file_server, reverse_proxy or another handler after ark",
			zap.String("id", a.res.Key), zap.String("target", a.target))
		return caddyhttp.Error(http.StatusInternalServerError, errors.New("nothing serves in-place targets"))
	}
	h.logs.Log("missing target", zap.WarnLevel, "identifier resolved to a missing target", zap.String("id", a.res.Key), zap.String("target", a.target))
	if errors.As(err, new(caddyhttp.HandlerError)) {
		// Nothing is written yet (file_server's 404 is an error): say why.
		return h.refuse(w, r, http.StatusNotFound, a.res.Key+" is assigned here, but what it resolves to is missing", a.res.Key)
	}
	return err
}
