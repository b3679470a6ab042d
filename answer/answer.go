// Package answer works out and writes the answer to a request for an
// identifier, given the request and the resolver of the moment: a
// redirect, an identifier served in place, a tombstone, a refusal,
// ?info and every metadata format, content negotiation, FAIR Signposting
// headers and linksets, the well-known resolver location and the
// readiness check. It observes each answer once (metrics, statistics,
// access log fields).
//
// The Caddy module (the root package) provisions an Answerer from its
// configuration and calls Serve from ServeHTTP; everything else about a
// request's answer is here, and its tests drive it with no Caddy running.
package answer

import (
	"errors"
	htmltemplate "html/template"
	"net/http"
	"net/url"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/logsum"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/signpost"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// Config is what answers depend on besides the request and the resolver:
// the handler's settings, and the parts of the handler they report to.
type Config struct {
	// Base is where links to the site point when base_url is set (see
	// ParseBaseURL); the zero value takes them from each request.
	Base info.Links
	// Organization names who assigns the site's identifiers ("" for the
	// site's host).
	Organization string
	// Ready is the path of the readiness check, "" for none.
	Ready string
	// InfoPage renders ?info for browsers (info.LoadPage).
	InfoPage *htmltemplate.Template
	// NoSignposting, NoNegotiation, SignpostFormats and MetadataDefaults
	// are the handler's settings of the same names.
	NoSignposting    bool
	NoNegotiation    bool
	SignpostFormats  []string
	MetadataDefaults []MetadataDefaults
	// LinkCache is how many identifiers' Link headers are kept built, 0
	// for none.
	LinkCache int
	// Store is the handler's store, nil when it has none; ?info reads the
	// checks of targets from it.
	Store store.Store
	// TargetsChecked says whether the site checks its targets, so that
	// ?info says a target not checked yet is unchecked.
	TargetsChecked bool
	// Stats counts answers, nil when statistics are off.
	Stats *stats.Collector
	// Logger is the handler's logger; Logs is the same for what every
	// request may repeat.
	Logger *zap.Logger
	Logs   *logsum.Logger
}

// Answerer answers requests for identifiers as one handler's
// configuration says. Its zero value is not usable: Provision sets it
// up, Close stops it.
type Answerer struct {
	base           info.Links
	organization   string
	ready          string
	infoPage       *htmltemplate.Template
	store          store.Store
	targetsChecked bool
	stats          *stats.Collector
	logger         *zap.Logger
	logs           *logsum.Logger
	siteHosts      siteHosts
	machine        machineReadable
}

// Provision sets an up from c.
func (an *Answerer) Provision(c Config) error {
	an.base, an.organization, an.ready, an.infoPage = c.Base, c.Organization, c.Ready, c.InfoPage
	an.store, an.targetsChecked, an.stats = c.Store, c.TargetsChecked, c.Stats
	an.logger, an.logs = c.Logger, c.Logs
	return an.provisionMachineReadable(c)
}

// Close stops the goroutines of the Link header cache. It may be called
// more than once.
func (an *Answerer) Close() {
	an.closeMachineReadable()
}

// Serve answers r with rs, the handler's resolver of the moment (nil
// while its configuration is replaced), or hands r to next: as it came
// for a request that is not for an identifier, the ready path or the
// well-known path, rewritten to its target for an identifier served in
// place. It works out the answer first, then writes it and observes it,
// each in one place.
func (an *Answerer) Serve(w http.ResponseWriter, r *http.Request, rs *resolve.Resolver, next caddyhttp.Handler) error {
	a := an.answer(r, rs)
	err := an.write(w, r, &a, next)
	an.observe(r, &a)
	return err
}

// Links returns where links to the site point for r: base_url when set,
// else the request's scheme and host when the site is configured for
// that host by name, else path-absolute references.
func (an *Answerer) Links(r *http.Request) info.Links { return an.self(r) }

// MetadataDefaultsOf returns the metadata_defaults that cover a: those
// of the longest shoulder that starts its name, else of its NAAN, else
// nil.
func (an *Answerer) MetadataDefaultsOf(a normalize.ARK) metadata.Defaults {
	return an.machine.defaults.covering(a)
}

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
// is written: Serve writes it in one place and observes it once.
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

// answer works out the answer to r, rs the resolver of the moment: the
// readiness check, the well-known resolver location, or the resolution of
// an identifier; replyPass for a request that is none of these.
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

// write writes a, or hands r to next: rewritten to its target for an
// in-place answer, as it came for a request that is not the handler's.
// An in-place target that turns out missing changes a's outcome.
func (an *Answerer) write(w http.ResponseWriter, r *http.Request, a *reply, next caddyhttp.Handler) error {
	switch a.kind {
	case replyPass:
		return next.ServeHTTP(w, r)
	case replyError:
		return a.err
	case replyReady:
		return writeReady(w, r, a.status, a.ready)
	case replyWellKnown:
		return writeWellKnown(w, a)
	case replyInfo:
		return an.writeInfo(w, r, a.record, a.describe)
	case replyMetadata:
		return an.writeMetadata(w, a.metadata)
	}
	hdr, values := w.Header(), a.headerValues()
	if a.links {
		an.addSignposting(hdr, values, an.self(r), a.res)
	}
	if a.cors {
		hdr["Access-Control-Allow-Origin"] = values.one("*")
	}
	switch a.kind {
	case replyRedirect:
		hdr["Location"] = values.one(a.location)
		w.WriteHeader(a.status)
		return nil
	case replyDirectory:
		return redirectToDirectory(w, an.self(r), a.res, a.query)
	case replyInPlace:
		return an.writeInPlace(w, r, a, next)
	}
	if a.allow != "" {
		hdr.Set("Allow", a.allow)
	}
	if a.retry {
		hdr.Set("Retry-After", resolve.RetryAfter)
	}
	return an.refuseResolved(w, r, a.status, a.reason, a.key, a.res)
}
