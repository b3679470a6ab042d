package ark

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// ServeHTTP answers requests for identifiers and passes all others to next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	core, ok := requestCore(r)
	if !ok {
		if r.URL.Path == wellKnownPath {
			return serveWellKnown(w, r)
		}
		return next.ServeHTTP(w, r)
	}
	rs := h.resolver.Load()
	res := rs.resolve(core)
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	vars := &arkVars{res: res}
	repl.Map(vars.get)
	if isInflection(r.URL) && isARKCore(core) && res.outcome != outcomeForeign {
		out, err := h.serveInfo(w, r, rs, core, res, repl)
		h.observe(r, repl, core, res, out, "")
		return err
	}
	if res.key == "" {
		h.observe(r, repl, core, res, res.outcome, "")
		return writeRefusal(w, res.status, res.reason)
	}
	query, err := passedQuery(r, core, res)
	if err != nil {
		h.observe(r, repl, core, res, outcomeInvalid, "")
		return writeRefusal(w, http.StatusBadRequest, err.Error())
	}
	if res.target == "" && res.tmpl == nil {
		addLinks(w.Header(), r, res) // a withdrawn identifier still links to its tombstone
		h.observe(r, repl, core, res, res.outcome, "")
		return writeRefusal(w, res.status, res.reason)
	}
	target, ok := res.buildTarget(repl, query)
	if !ok {
		h.observe(r, repl, core, res, outcomeInvalid, "")
		return writeRefusal(w, http.StatusBadRequest, "the identifier would build an unsafe target")
	}
	if res.outcome == outcomeForeign && strings.EqualFold(hostname(r.Host), rs.foreignHost) {
		h.observe(r, repl, core, res, outcomeNotFound, "")
		return writeRefusal(w, http.StatusNotFound, res.key+" is not assigned here, and this site is the foreign resolver")
	}
	vars.target = target
	addLinks(w.Header(), r, res)
	h.observe(r, repl, core, res, res.outcome, target)
	if res.status == http.StatusOK {
		served := res.local
		if served == nil || target != res.target {
			if served, err = url.Parse(target); err != nil {
				return caddyhttp.Error(http.StatusInternalServerError, err)
			}
		}
		return next.ServeHTTP(w, rewrite(r, served))
	}
	w.Header().Set("Location", target)
	w.WriteHeader(res.status)
	return nil
}

// requestCore returns the escaped request path without its leading "/" when
// its first segment starts with "ark:" or "urn:" in any case.
func requestCore(r *http.Request) (string, bool) {
	p := r.URL.EscapedPath()
	if len(p) < 5 || p[0] != '/' {
		return "", false
	}
	if scheme := p[1:5]; !strings.EqualFold(scheme, "ark:") && !strings.EqualFold(scheme, "urn:") {
		return "", false
	}
	return p[1:], true
}

// passedQuery returns the query that the target receives: the request's
// query for an ARK (inflections never get here: serveInfo answers them),
// the q-component for a URN. For the foreign resolver it is the whole query
// with its "?", inflections included: a bare "?" means something there too.
func passedQuery(r *http.Request, core string, res *resolution) (string, error) {
	raw := r.URL.RawQuery
	if raw == "" && !r.URL.ForceQuery {
		return "", nil
	}
	if res.outcome == outcomeForeign {
		return "?" + safeQuery(raw), nil
	}
	if !res.isARK {
		u, err := normalize.ParseURN(core + "?" + raw)
		if err != nil {
			return "", err
		}
		return safeQuery(u.QComponent()), nil
	}
	return safeQuery(raw), nil
}

// buildTarget returns the target of res with query added, expanding a
// template's placeholders; ok is false when the result is not safe.
func (res *resolution) buildTarget(repl *caddy.Replacer, query string) (string, bool) {
	if res.outcome == outcomeForeign {
		return res.target + query, true
	}
	t := res.tmpl
	if t == nil {
		return joinTarget(res.target, "", query), true
	}
	target := repl.ReplaceAll(t.target, "")
	if !t.suffixed {
		target = joinTarget(target, res.suffix, "")
	}
	if !strings.HasPrefix(target, t.static) || (t.local && !localPathSafe(target)) {
		return "", false
	}
	return joinTarget(target, "", query), true
}

// rewrite points the request at served, a local target, for the next
// handler to serve in place. When the target's last path segment is the
// same as the request's, the handlers after it also see the target as the
// original request: file_server compares the two to redirect to a
// canonical URI with a 308, and an identifier must never be answered with
// a permanent redirect. The server keeps its own copy of the original for
// access logs and error routes.
func rewrite(r *http.Request, served *url.URL) *http.Request {
	orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request)
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.URL.ForceQuery = served.Path, served.RawPath, served.RawQuery, false
	r.RequestURI = r.URL.RequestURI()
	if ok && orig.URL != nil && path.Base(orig.URL.Path) == path.Base(r.URL.Path) {
		u := *r.URL
		orig.URL, orig.RequestURI = &u, r.RequestURI
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.OriginalRequestCtxKey, orig))
	}
	return r
}

// writeRefusal answers with status and a one-line plain-text reason.
func writeRefusal(w http.ResponseWriter, status int, reason string) error {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strconv.Itoa(status)+" "+http.StatusText(status)+": "+reason+"\n")
	return nil
}

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
