package ark

import (
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// ServeHTTP answers requests for identifiers and passes all others to next.
// The API and its console, and the OAI-PMH provider, are services of their
// own; every other request goes to the answer path (package answer), which
// works out the answer, writes it and observes it, each in one place.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if err := h.stores.awaitReady(r.Context()); err != nil {
		return err
	}
	if h.API != nil {
		if route, rest, ok := h.API.Route(r); ok {
			return h.serveAPI(w, r, route, rest)
		}
	}
	if op, rest, ok := h.ezid.Route(r); ok {
		return h.ezid.Serve(w, r, op, rest, handlerSite{h})
	}
	if h.OAI != nil && r.URL.Path == h.OAI.Path {
		return h.OAI.Serve(w, r, oaiSite{h})
	}
	return h.answers.Serve(w, r, h.resolver.Load(), next)
}
