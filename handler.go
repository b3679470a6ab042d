package ark

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// ServeHTTP answers requests for identifiers and passes all others to next.
// It works out the answer first, then writes it and observes it, each in
// one place; the API and its console are services of their own.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
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
	a := h.answer(r)
	err := h.write(w, r, &a, next)
	h.observe(r, &a)
	return err
}

// requestCore returns the escaped request path without its leading "/" when
// its first segment starts with "ark:" or "urn:" in any case. It prefers
// the path as sent: when the request holds raw non-ASCII bytes,
// URL.EscapedPath re-escapes the decoded path, turning "%2F" into "/".
func requestCore(r *http.Request) (string, bool) {
	p := r.URL.RawPath
	if p != "" {
		p = escapeRaw(p) // the path as sent, when it differs from Go's escaping of URL.Path
	} else {
		p = r.URL.EscapedPath()
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
	if !strings.ContainsFunc(p, urlpath.UnsafeInQuery) {
		return p
	}
	return urlpath.PercentEncode(p, urlpath.UnsafeInQuery)
}

// passedQuery returns the query that the target receives: the request's
// query for an ARK (inflections never get here: serveInfo answers them),
// the q-component for a URN. For the foreign resolver it is the whole query
// with its "?", inflections included: a bare "?" means something there too.
func passedQuery(r *http.Request, core string, res *resolve.Resolution) (string, error) {
	raw := r.URL.RawQuery
	if raw == "" && !r.URL.ForceQuery {
		return "", nil
	}
	if res.Outcome == resolve.OutcomeForeign {
		return "?" + urlpath.SafeQuery(raw), nil
	}
	if !res.IsARK {
		u, err := normalize.ParseURN(core + "?" + raw)
		if err != nil {
			return "", err
		}
		return urlpath.SafeQuery(u.QComponent()), nil
	}
	return urlpath.SafeQuery(raw), nil
}

// buildTarget returns the target of res with query added, expanding a
// template's placeholders; it refuses a target that request data would
// make unsafe.
func buildTarget(res *resolve.Resolution, repl *caddy.Replacer, query string) (string, error) {
	if res.Outcome == resolve.OutcomeForeign {
		return res.Target + query, nil
	}
	t := res.Tmpl
	if t == nil {
		return urlpath.JoinTarget(res.Target, "", query), nil
	}
	target, err := t.Expand(repl, res.Suffix)
	if err != nil {
		return "", err
	}
	if t.Local && !urlpath.LocalPathSafe(target) {
		return "", urlpath.ErrDotSegment
	}
	return urlpath.JoinTarget(target, "", query), nil
}

// rewrite points the request at served, a local target, for the next
// handler to serve in place.
func rewrite(r *http.Request, served *url.URL) {
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.URL.ForceQuery = served.Path, served.RawPath, served.RawQuery, false
	r.RequestURI = r.URL.RequestURI()
}

// redirectToDirectory answers an ARK served in place from a directory,
// but requested without a trailing "/", with a temporary redirect to its
// normal form with one, so that the index page's relative links
// ("l1.html") resolve under the identifier and not beside it. A URN is
// served as it is: a "/" after it would make another URN.
func redirectToDirectory(w http.ResponseWriter, at info.Links, res *resolve.Resolution, query string) error {
	location := at.IdentifierURL(res.Key) + "/"
	if query != "" {
		location += "?" + query
	}
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusFound)
	return nil
}

// serveInPlace hands a request rewritten to a local target to the next
// handlers. A trailing "/" on an identifier is a lenient repair, but
// file_server compares the original path with the file it serves and
// redirects to drop the slash; when it does, the redirect is swallowed and
// the request served again as if it had been spelled without the slash, so
// the repaired spelling answers as the normal form does. A directory keeps
// the slash and is never served twice.
//
// It returns the status of the answer, 0 when nothing answered.
func serveInPlace(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) (int, error) {
	tw := &temporaryRedirects{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
	orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request)
	if ok && orig.URL != nil && strings.HasSuffix(orig.URL.Path, "/") && !strings.HasSuffix(r.URL.Path, "/") {
		tw.dropSlash = redirectLocation(strings.TrimSuffix(orig.URL.Path, "/"))
	}
	err := next.ServeHTTP(tw, r)
	if err == nil && tw.swallowed {
		w.Header().Del("Location")
		w.Header().Del("Content-Type")
		u := *orig.URL
		u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), strings.TrimRight(u.RawPath, "/")
		orig.URL = &u
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.OriginalRequestCtxKey, orig))
		tw = &temporaryRedirects{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
		err = next.ServeHTTP(tw, r)
	}
	if err != nil { // errors.As takes handlerErr to the heap: only for an error
		var handlerErr caddyhttp.HandlerError
		if errors.As(err, &handlerErr) {
			return handlerErr.StatusCode, err
		}
	}
	return tw.status, err
}

// temporaryRedirects passes on the answer of the handlers that serve an
// identifier in place, turning a permanent redirect into the temporary one
// with the same method rules: 301 into 302, 308 into 307. An identifier's
// answer is never a permanent redirect, and file_server gives one to add or
// drop a directory's trailing slash.
type temporaryRedirects struct {
	caddyhttp.ResponseWriterWrapper

	// dropSlash is the original path without its repaired trailing "/", as
	// a redirect there spells it in Location: such a permanent redirect is
	// swallowed (see serveInPlace).
	dropSlash string
	swallowed bool
	status    int // the status written, 0 until one is
}

// WriteHeader writes status, made temporary when it is a permanent redirect.
func (w *temporaryRedirects) WriteHeader(status int) {
	switch status {
	case http.StatusMovedPermanently, http.StatusPermanentRedirect:
		if location, _, _ := strings.Cut(w.Header().Get("Location"), "?"); w.dropSlash != "" && location == w.dropSlash {
			w.swallowed = true
			return
		}
	}
	switch status {
	case http.StatusMovedPermanently:
		status = http.StatusFound
	case http.StatusPermanentRedirect:
		status = http.StatusTemporaryRedirect
	}
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriterWrapper.WriteHeader(status)
}

// Write writes b, unless the answer was swallowed.
func (w *temporaryRedirects) Write(b []byte) (int, error) {
	if w.swallowed {
		return len(b), nil
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriterWrapper.Write(b)
}

// ReadFrom copies r to the answer, unless the answer was swallowed.
func (w *temporaryRedirects) ReadFrom(r io.Reader) (int64, error) {
	if w.swallowed {
		return io.Copy(io.Discard, r)
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriterWrapper.ReadFrom(r)
}

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
