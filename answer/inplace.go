package answer

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// writeInPlace has next serve a's local target in place, and refuses with
// 404 when nothing is there.
func (an *Answerer) writeInPlace(w http.ResponseWriter, r *http.Request, a *reply, next caddyhttp.Handler) error {
	rewrite(r, a.served)
	status, err := serveInPlace(w, r, next)
	if status != http.StatusNotFound && status != 0 {
		return err
	}
	a.out, a.room.vars.out = resolve.OutcomeMissing, resolve.OutcomeMissing
	if status == 0 {
		an.logs.Log("no next handler", zap.ErrorLevel, "no handler after ark served an in-place target: add file_server, reverse_proxy or another handler after ark",
			zap.String("id", a.res.Key), zap.String("target", a.target))
		return caddyhttp.Error(http.StatusInternalServerError, errors.New("nothing serves in-place targets"))
	}
	an.logs.Log("missing target", zap.WarnLevel, "identifier resolved to a missing target", zap.String("id", a.res.Key), zap.String("target", a.target))
	if errors.As(err, new(caddyhttp.HandlerError)) {
		// Nothing is written yet (file_server's 404 is an error): say why.
		return an.refuse(w, r, http.StatusNotFound, a.res.Key+" is assigned here, but what it resolves to is missing", a.res.Key)
	}
	return err
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

// redirectLocation returns the Location that http.Redirect, which
// file_server answers with, writes for the decoded path p: cleaned ("//"
// and "." segments removed, a trailing "/" kept) when p parses as a URL,
// and with every
// non-ASCII byte percent-encoded in lowercase hex.
func redirectLocation(p string) string {
	if _, err := url.Parse(p); err == nil {
		trailing := strings.HasSuffix(p, "/")
		if p = path.Clean(p); trailing && !strings.HasSuffix(p, "/") {
			p += "/"
		}
	}
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			b = strconv.AppendInt(append(b, '%'), int64(p[i]), 16)
			continue
		}
		b = append(b, p[i])
	}
	return string(b)
}
