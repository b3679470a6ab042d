package ark

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// ServeHTTP answers requests for identifiers and passes all others to next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if h.API != nil {
		if route, rest, ok := h.API.route(r); ok {
			return h.serveAPI(w, r, route, rest)
		}
	}
	core, ok := requestCore(r)
	if !ok {
		if r.URL.Path == wellKnownPath {
			return serveWellKnown(w, r)
		}
		return next.ServeHTTP(w, r)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return writeRefusal(w, http.StatusMethodNotAllowed, "an identifier is answered for GET and HEAD only, not "+r.Method)
	}
	rs := h.resolver.Load()
	if rs == nil {
		// Only a request that outlived its server's shutdown gets here.
		return caddyhttp.Error(http.StatusServiceUnavailable, errors.New("the configuration is being replaced"))
	}
	res := rs.resolve(r.Context(), core)
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	vars := &arkVars{res: res}
	repl.Map(vars.get)
	if res.outcome == outcomeUnavailable {
		h.logger.Error("the store could not be read", zap.String("raw", core), zap.Error(res.err))
		h.observe(r, repl, core, res, res.outcome, "")
		w.Header().Set("Retry-After", retryAfter)
		return writeRefusal(w, res.status, res.reason)
	}
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
		rewrite(r, served)
		return next.ServeHTTP(&temporaryRedirects{caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}, r)
	}
	w.Header().Set("Location", target)
	w.WriteHeader(res.status)
	return nil
}

// requestCore returns the escaped request path without its leading "/" when
// its first segment starts with "ark:" or "urn:" in any case. It prefers
// the path as sent: when the request holds raw non-ASCII bytes,
// URL.EscapedPath re-escapes the decoded path, turning "%2F" into "/".
func requestCore(r *http.Request) (string, bool) {
	p := r.URL.EscapedPath()
	if r.URL.RawPath != "" {
		p = escapeRaw(r.URL.RawPath) // the path as sent, when it differs from Go's escaping of URL.Path
	}
	if len(p) < 5 || p[0] != '/' {
		return "", false
	}
	if scheme := p[1:5]; !strings.EqualFold(scheme, "ark:") && !strings.EqualFold(scheme, "urn:") {
		return "", false
	}
	return p[1:], true
}

// escapeRaw percent-encodes the bytes of a path as sent that may not stand
// raw in a URI (controls, space, non-ASCII, and "<>\"\\^`{|}"), leaving
// every percent-encoding as it was.
func escapeRaw(p string) string {
	if !strings.ContainsFunc(p, unsafeInQuery) {
		return p
	}
	return percentEncode(p, unsafeInQuery)
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
	if !t.keepsOrigin(target) || (t.local && !localPathSafe(target)) {
		return "", false
	}
	return joinTarget(target, "", query), true
}

// rewrite points the request at served, a local target, for the next
// handler to serve in place.
func rewrite(r *http.Request, served *url.URL) {
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.URL.ForceQuery = served.Path, served.RawPath, served.RawQuery, false
	r.RequestURI = r.URL.RequestURI()
}

// temporaryRedirects passes on the answer of the handlers that serve an
// identifier in place, turning a permanent redirect into the temporary one
// with the same method rules: 301 into 302, 308 into 307. An identifier's
// answer is never a permanent redirect, and file_server gives one to add or
// drop a directory's trailing slash.
type temporaryRedirects struct {
	caddyhttp.ResponseWriterWrapper
}

// WriteHeader writes status, made temporary when it is a permanent redirect.
func (w *temporaryRedirects) WriteHeader(status int) {
	switch status {
	case http.StatusMovedPermanently:
		status = http.StatusFound
	case http.StatusPermanentRedirect:
		status = http.StatusTemporaryRedirect
	}
	w.ResponseWriterWrapper.WriteHeader(status)
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
