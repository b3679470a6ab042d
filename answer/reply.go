package answer

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// replyKind says what an answer does.
type replyKind uint8

const (
	replyPass      replyKind = iota // not for this handler: the next one answers
	replyRefusal                    // status with a one-line reason
	replyRedirect                   // status with Location
	replyDirectory                  // a redirect adding the "/" an in-place directory needs
	replyInPlace                    // the request rewritten to a local target, for next
	replyInfo                       // ?info: a metadata record
	replyMetadata                   // an identifier's metadata in one format
	replyReady                      // the readiness check
	replyWellKnown                  // /.well-known/ark
	replyError                      // an error for Caddy to answer
)

// reply is what the handler says to a request, worked out before anything
// is written: ServeHTTP writes it in one place and observes it once.
type reply struct {
	kind   replyKind
	status int
	// reason is why a refusal refuses; key is the normalized identifier
	// it names, "" when there is none.
	reason, key string
	// err is the error of replyError.
	err error

	// core is the identifier part of the request path, as sent; res is
	// its resolution, nil for answers that are not about an identifier.
	core string
	res  *resolve.Resolution
	// out is the outcome observed: res's, unless the request was refused
	// after resolution or its in-place target turned out missing.
	out resolve.Outcome
	// room holds the memory of an answer about an identifier, with the
	// request's {http.ark.*} placeholders (the outcome they say changes
	// with out); nil when nothing resolved.
	room *answerRoom
	// target is the built target, "" until it is built.
	target string

	// links says whether the answer carries the identifier's Link headers.
	links bool
	// cors says whether any origin may read the answer: metadata, and
	// the redirect to it.
	cors bool
	// allow is the Allow header of a 405, "" otherwise.
	allow string
	// retry says whether a 503 carries Retry-After.
	retry bool

	location string       // a redirect's Location
	service  string       // the resolver service's path, at the well-known path
	served   *url.URL     // the local target an in-place answer rewrites to
	query    string       // the query an in-place directory's redirect keeps
	record   *info.Record // ?info's record
	// describe builds the signposting and metadata record of ?info's
	// identifier, for ?info to answer in a metadata format; nil for a
	// NAAN's or shoulder's policy.
	describe func() (*signpost.Subject, *metadata.Record)
	metadata *metadataReply // replyMetadata's format and record
	ready    readiness      // the readiness check's report
}

// headerValues returns the room for the values of a's headers, nil when
// a has no room.
func (a *reply) headerValues() *headerValues {
	if a.room == nil {
		return nil
	}
	return &a.room.values
}

// refusal returns an answer refusing a request with status and reason;
// key is the normalized identifier, "" when the request is not one.
func refusal(status int, reason, key string) reply {
	return reply{kind: replyRefusal, status: status, reason: reason, key: key}
}

// answer works out the answer to r, rs the resolver of the moment: the readiness check, the well-known
// resolver location, or the resolution of an identifier; replyPass for a
// request that is none of these.
func (an *Answerer) answer(r *http.Request, rs *resolve.Resolver) reply {
	if an.ready != "" && r.URL.Path == an.ready {
		return an.readyAnswer(r, rs)
	}
	core, ok := requestCore(r)
	if !ok {
		if r.URL.Path == wellKnownPath {
			return an.wellKnownAnswer(r)
		}
		return reply{kind: replyPass}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		a := refusal(http.StatusMethodNotAllowed, "an identifier is answered for GET and HEAD only, not "+r.Method, "")
		a.allow = "GET, HEAD"
		return a
	}
	if rs == nil {
		// Only a request that outlived its server's shutdown gets here.
		return reply{kind: replyError, err: caddyhttp.Error(http.StatusServiceUnavailable, errors.New("the configuration is being replaced"))}
	}
	hit := hitRooms.Get().(*hitRoom)
	res := rs.ResolveIn(r.Context(), core, &hit.Room)
	room := answerRoomOf(hit, res)
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	room.vars = arkVars{res: res, out: res.Outcome}
	repl.Map(room.vars.get) // the one allocation of its own: a func bound to this request
	a := an.resolutionAnswer(r, rs, repl, core, res)
	room.vars.target, room.vars.out = a.target, a.out
	a.room = room
	return a
}

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

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
