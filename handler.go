package ark

import (
	"io"
	"net"
	"net/http"
	"net/url"
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
		return next.ServeHTTP(w, r)
	}
	rs := h.resolver.Load()
	res := rs.resolve(core)
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	setPlaceholders(repl, res)
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
	repl.Set("http.ark.target", target)
	h.observe(r, repl, core, res, res.outcome, target)
	if res.status == http.StatusOK {
		if err := rewrite(r, target); err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		return next.ServeHTTP(w, r)
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
// query for an ARK unless it is an inflection, the q-component for a URN.
// For the foreign resolver it is the whole query with its "?", inflections
// included: a bare "?" means something there too.
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
	if res.ark.IsInfo() || raw == "" || raw == "?" || raw == "info" {
		return "", nil
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

// setPlaceholders makes the resolution's parts available as {http.ark.*}
// to templates, later handlers and logs.
func setPlaceholders(repl *caddy.Replacer, res *resolution) {
	repl.Set("http.ark.outcome", res.outcome.String())
	if res.key == "" {
		return
	}
	repl.Set("http.ark.id", res.key)
	repl.Set("http.ark.suffix", res.suffix)
	repl.Set("http.ark.via", res.via)
	if res.isARK {
		name := res.ark.Name()
		repl.Set("http.ark.naan", res.ark.NAAN())
		repl.Set("http.ark.name", name)
		repl.Set("http.ark.shoulder", res.shoulder)
		repl.Set("http.ark.blade", name[len(res.shoulder):])
	}
}

// rewrite points the request at a local target, for the next handler to
// serve in place.
func rewrite(r *http.Request, target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.URL.ForceQuery = u.Path, u.RawPath, u.RawQuery, false
	r.RequestURI = r.URL.RequestURI()
	return nil
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
