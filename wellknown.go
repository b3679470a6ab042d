package ark

import (
	"io"
	"net/http"

	"github.com/caddy-ark/caddy-ark/info"
)

// wellKnownPath is where a host says where its ARK resolver service is
// (draft-kunze-ark, "IANA Considerations": the "ark" well-known URI of
// RFC 8615).
const wellKnownPath = "/.well-known/ark"

// serveWellKnown answers GET /.well-known/ark with the path of the resolver
// service, ending in "/": appending a compact ARK to it makes a resolution
// request. It is base_url when the operator set it; else "/" unless
// routing stripped a prefix before this handler (handle_path /resolver/*
// gives "/resolver/").
func (h *Handler) serveWellKnown(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return info.WriteRefusal(w, http.StatusMethodNotAllowed, r.Method+" is not supported here")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	service := h.base.Base
	if service == "" {
		service = servicePrefix(r)
	}
	_, _ = io.WriteString(w, service+"/")
	return nil
}
