package answer

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// resolutionAnswer works out the answer for core, which rs resolved to res.
func (an *Answerer) resolutionAnswer(r *http.Request, rs *resolve.Resolver, repl *caddy.Replacer, core string, res *resolve.Resolution) reply {
	refuse := func(out resolve.Outcome, status int, reason string) reply {
		a := refusal(status, reason, res.Key)
		a.core, a.res, a.out = core, res, out
		return a
	}
	if res.Outcome == resolve.OutcomeUnavailable {
		kind := "store unavailable"
		if errors.Is(res.Err, resolve.ErrTableDamaged) {
			kind = "table damaged"
		}
		an.logs.Log(kind, zap.ErrorLevel, "the identifier could not be looked up", zap.String("raw", core), zap.Error(res.Err))
		a := refuse(res.Outcome, res.Status, res.Reason)
		a.key, a.retry = "", true
		return a
	}
	if info.IsInflection(r.URL) && info.IsARKCore(core) && res.Outcome != resolve.OutcomeForeign {
		a := an.infoAnswer(r, rs, repl, core, res)
		a.core, a.res = core, res
		return a
	}
	if f, q, ok := formatRequested(r.URL); ok && info.IsARKCore(core) && res.Outcome != resolve.OutcomeForeign {
		a := an.formatAnswer(r, repl, res, f, q)
		a.core, a.res = core, res
		return a
	}
	if res.Key == "" {
		return refuse(res.Outcome, res.Status, res.Reason)
	}
	if f, params := an.metadataAsked(r, res); f != nil {
		return an.metadataRedirect(r, core, res, f, params)
	}
	query, err := passedQuery(r, core, res)
	if err != nil {
		return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, err.Error())
	}
	if res.Target == "" && res.Tmpl == nil {
		a := refuse(res.Outcome, res.Status, res.Reason)
		a.links = true // a withdrawn identifier still links to its tombstone
		return a
	}
	target, err := buildTarget(res, repl, query)
	if err != nil {
		return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, res.Key+": "+err.Error())
	}
	if res.Outcome == resolve.OutcomeForeign && strings.EqualFold(hostname(r.Host), rs.ForeignHost()) {
		return refuse(resolve.OutcomeNotFound, http.StatusNotFound, res.Key+" is not assigned here, and this site is the foreign resolver")
	}
	a := reply{core: core, res: res, out: res.Outcome, target: target, links: true, status: res.Status}
	if res.Status != http.StatusOK {
		a.kind, a.location = replyRedirect, urlpath.ASCII(target)
		return a
	}
	served := res.Local
	if served == nil || target != res.Target {
		if served, err = url.Parse(target); err != nil {
			return refuse(resolve.OutcomeInvalid, http.StatusBadRequest, res.Key+": the target built from the request is not a valid path")
		}
	}
	if res.IsARK && strings.HasSuffix(served.Path, "/") && !strings.HasSuffix(r.URL.Path, "/") {
		a.kind, a.status, a.query = replyDirectory, http.StatusFound, query
		return a
	}
	a.kind, a.served = replyInPlace, served
	return a
}

// requestCore returns the escaped request path without its leading "/" when
// its first segment starts with "ark:" or "urn:" in any case. It prefers
// the path as sent: when the request holds raw non-ASCII bytes,
// URL.EscapedPath re-escapes the decoded path, turning "%2F" into "/".
func requestCore(r *http.Request) (string, bool) {
	p := r.URL.RawPath
	switch {
	case p != "":
		p = escapeRaw(p) // the path as sent, when it differs from Go's escaping of URL.Path
	case pathAsEscaped(r.URL.Path):
		p = r.URL.Path // most requests: URL.EscapedPath would return it after the same scan, slower
	default:
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

// pathAsEscaped reports whether URL.EscapedPath leaves p as it is, with
// no RawPath: every byte one that net/url does not escape in a path.
func pathAsEscaped(p string) bool {
	for i := 0; i < len(p); i++ {
		if !pathByteKept[p[i]] {
			return false
		}
	}
	return true
}

// pathByteKept holds the bytes that net/url keeps as they are in a path:
// the unreserved characters and the reserved ones but "?" (url.shouldEscape
// with encodePath).
var pathByteKept = func() (kept [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~$&+,/:;=@") {
		kept[c] = true
	}
	return kept
}()

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

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
