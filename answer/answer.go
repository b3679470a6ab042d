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
	htmltemplate "html/template"
	"net/http"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/logsum"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store"
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
