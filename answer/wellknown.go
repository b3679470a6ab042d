package answer

import (
	"io"
	"net/http"

	"github.com/caddy-ark/caddy-ark/info"
)

// wellKnownPath is where a host says where its ARK resolver service is
// (draft-kunze-ark, "IANA Considerations": the "ark" well-known URI of
// RFC 8615).
const wellKnownPath = "/.well-known/ark"

// wellKnownAnswer works out the answer to GET /.well-known/ark: the path
// of the resolver service, ending in "/": appending a compact ARK to it
// makes a resolution request. It is base_url when the operator set it;
// else "/" unless routing stripped a prefix before this handler
// (handle_path /resolver/* gives "/resolver/").
func (an *Answerer) wellKnownAnswer(r *http.Request) reply {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return reply{kind: replyWellKnown, status: http.StatusMethodNotAllowed, reason: r.Method + " is not supported here", allow: "GET, HEAD"}
	}
	service := an.base.Base
	if service == "" {
		service = servicePrefix(r)
	}
	return reply{kind: replyWellKnown, status: http.StatusOK, service: service + "/"}
}

// writeWellKnown writes the answer at the well-known path: the service's
// path or a refused method.
func writeWellKnown(w http.ResponseWriter, a *reply) error {
	if a.status != http.StatusOK {
		w.Header().Set("Allow", a.allow)
		return info.WriteRefusal(w, a.status, a.reason)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, a.service)
	return nil
}
