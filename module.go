// Package ark is a Caddy HTTP handler that resolves ARKs (Archival Resource
// Keys) and URNs on any site: requests for /ark:... and /urn:... are
// normalized, so every equivalent spelling of an identifier reaches the same
// content, and mapped through a table to content served in place or to a
// temporary redirect.
//
// This package is the Caddy module http.handlers.ark and only that: its
// configuration, Caddyfile, provisioning, the one store module of a
// handler, the resolution cache and the wiring of ServeHTTP. What it
// composes lives in packages of their own (the answer path in answer, the
// tables' pool and watcher in table/pool, and normalize, table, store,
// resolve, info, api, cli, …; see the README's Architecture), none of which
// imports this one; only cmd/ does.
package ark

import (
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/console"
	"github.com/caddy-ark/caddy-ark/ezid"
	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/logsum"
	"github.com/caddy-ark/caddy-ark/internal/runstart"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/oai"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/table/pool"
	"github.com/caddy-ark/caddy-ark/targets"
)

func init() {
	caddy.RegisterModule(new(Handler))
}

// defaultMaxLength is the default max_length: well above the 255 code
// points the draft says may never be refused for length.
const defaultMaxLength = 1024

// defaultForeign is the global ARK resolver that ARKs of other NAANs are
// sent to.
const defaultForeign = "https://n2t.net"

// The limits below bound what a configuration or a table can make the
// server allocate or do. They are checked while the Caddyfile is parsed,
// in Validate, before Provision allocates anything, and while a table file
// is read, so an over-long string is refused before it is held whole. The
// README's Limits section lists them.
const (
	// maxCacheSize bounds cache_size. A cache entry costs about
	// cacheEntryBytes when full, allocated in part up front (counters and
	// doorkeeper), for every table swap too.
	maxCacheSize = 1 << 20

	// minWatchInterval is the shortest watch interval: polling more often
	// costs CPU and gains nothing, since a new file version is read only
	// once it has stayed the same for one interval.
	minWatchInterval = 100 * time.Millisecond

	// logEvery is how often at most a message that requests can repeat
	// (a missing target, a store or table that cannot be read) is
	// written, as a summary with a count; the metrics count each.
	logEvery = 5 * time.Second
)

// Handler resolves ARKs and URNs. Requests whose path starts with /ark: or
// /urn: (any case) are answered or rewritten; all others pass to the next
// handler untouched.
type Handler struct {
	// The NAANs this site assigns. ARKs under them are never sent to the
	// foreign resolver, even when they are not in the table. The NAANs of
	// the table's ARKs and of the templates count as this site's too.
	NAANs []string `json:"naans,omitempty"`

	// Table files: JSON objects {"entries": [...]} holding Entry objects.
	// They are read as streams when the configuration loads; a bad entry
	// or two equivalent identifiers with different targets fail the load.
	// Or one compiled table (`caddy ark compile`), recognized by its
	// content and mapped in memory rather than read.
	Tables []string `json:"tables,omitempty"`

	// Entries given in the configuration itself, checked like table
	// entries and merged with them.
	Entries []table.Entry `json:"entries,omitempty"`

	// Templates for whole shoulders or NAANs, tried when neither the
	// identifier nor one of its ancestors is in the table.
	Templates []resolve.Template `json:"templates,omitempty"`

	// Where ARKs of NAANs that are not this site's are sent, with a 302:
	// the global resolver's URL, or "404" to answer them with 404.
	// Default: https://n2t.net.
	Foreign string `json:"foreign,omitempty"`

	// The longest identifier accepted, in code points, without its query;
	// longer ones get 414. Default 1024, at most 8192; values below 255
	// count as 255.
	MaxLength int `json:"max_length,omitempty"`

	// How many resolutions the cache holds (default 10000, at most
	// 1048576); -1 turns the cache off.
	CacheSize int `json:"cache_size,omitempty"`

	// Persistence statements for NAANs and shoulders, shown by ?info with
	// every ARK they cover and on the NAAN or shoulder itself. Their NAANs
	// count as this site's.
	Policies []resolve.Policy `json:"policies,omitempty"`

	// An html/template file that replaces the built-in HTML page of ?info
	// for browsers. It is parsed when the configuration loads.
	InfoTemplate string `json:"info_template,omitempty"`

	// Whether to reload the table files when they change on disk, without
	// a config reload. A new version is read once it has stayed the same
	// for one watch interval, and swapped in only if it loads without
	// error; otherwise the running table keeps serving and the error is
	// logged.
	Watch bool `json:"watch,omitempty"`

	// How often watched table files are checked for changes. Default 1s,
	// at least 100ms.
	WatchInterval caddy.Duration `json:"watch_interval,omitempty"`

	// Whether to check a compiled table's whole-file checksum when it is
	// opened, at every load and reload. This reads the whole file, so
	// opening takes as long as reading it from disk; without it, opening
	// checks the header and the structure only, and each lookup checks
	// the record it answers from.
	VerifyTables bool `json:"verify_tables,omitempty"`

	// Whether to keep a compiled table's pages in memory once it is open:
	// they are read in the background (the open is not slowed) and locked
	// there (mlock), so that the kernel cannot page them out and no lookup
	// waits for the disk, however rarely each page is read. It needs a
	// locked-memory limit (RLIMIT_MEMLOCK) at least the size of the file;
	// where the system refuses, a warning says why and the table serves from
	// the page cache as without it. Tables in the heap (JSON, Caddyfile) are
	// in memory already.
	ResidentTables bool `json:"resident_tables,omitempty"`

	// The name of the organization that assigns this site's identifiers,
	// such as "Example Museum": ?info's commitment names it as "who" (else
	// the site's host), and the HTML pages link it to the site's home page.
	Organization string `json:"organization,omitempty"`

	// Set by the Caddyfile adapter: a digest of the table files' sizes,
	// modification times and inodes when the Caddyfile was adapted. The
	// handler does not use it; it is there so that a changed table file
	// changes the adapted config, which a plain `caddy reload` (a no-op
	// for an unchanged config) then applies.
	TableStamp string `json:"table_stamp,omitempty"`

	// The URL that this site's links to its own identifiers start with
	// (Link headers, ?info's url, resolver and policy links), such as
	// "https://example.org" or "https://example.org/resolver": an absolute
	// http(s) URL without query or fragment. Default: the request's scheme
	// and host when the site is configured for that host by name, else
	// path-absolute links ("/ark:12345/x5wf6789?info"), so that a forged
	// Host header on a catch-all site never reaches a link.
	BaseURL string `json:"base_url,omitempty"`

	// A path, such as "/healthz/ark", where the handler answers load
	// balancers' readiness checks: 200 when it can answer every
	// identifier it holds, 503 when its store does not answer (or its
	// circuit breaker is open) or a compiled table is damaged, with a
	// small JSON body saying which. Off when empty.
	Ready string `json:"ready,omitempty"`

	// The management API, which mints, binds and withdraws identifiers in
	// the store over HTTP under a path of the site. Off when absent.
	API *api.API `json:"api,omitempty"`

	// The store read after the table files, holding the identifiers
	// minted, bound and withdrawn through the API: a module in the
	// ark.stores namespace named by "backend", such as {"backend": "bolt",
	// "path": "/var/lib/caddy/ark-store.db"}. Without it no store is read,
	// unless minters, the API or targets_check are configured: they get
	// the bolt store in Caddy's data directory.
	StoreRaw json.RawMessage `json:"store,omitempty" caddy:"namespace=ark.stores inline_key=backend"`

	// A directory where this node keeps a copy of the store's bindings,
	// followed through the store's history: identifiers are looked up in
	// it, never in the store, and answered through the store's outages
	// (docs/postgresql.md). Off when empty.
	LocalCopy string `json:"local_copy,omitempty"`

	// Minters for shoulders: the names they mint are kept in the store.
	Minters []mint.Minter `json:"minters,omitempty"`

	// Resolution statistics: the requests of each shoulder per day and
	// outcome, the identifiers requested most, and the names under the
	// site's NAANs requested and resolving to nothing. They are counted in
	// memory, kept in the store (which they need), and read through the
	// API (GET <api>/stats) and its console. Off when absent.
	Stats *stats.Config `json:"stats,omitempty"`

	// Checks the targets of the tables and the store in the background,
	// politely, keeping the results in the store: which ones answer,
	// fail, are broken, suspect or unverifiable (docs/targets.md). Off
	// when absent; without a store line it uses the bolt store in Caddy's
	// data directory.
	TargetsCheck *targets.Config `json:"targets_check,omitempty"`

	// Turns off FAIR Signposting: resolved ARKs then carry only a
	// describedby link to their ?info and, when served in place, cite-as,
	// instead of cite-as, describedby for each advertised metadata format,
	// type, license, author, item and linkset (docs/machine-readable.md).
	NoSignposting bool `json:"no_signposting,omitempty"`

	// Turns off content negotiation: a plain ARK then resolves whatever
	// Accept asks for, and ?info chooses between ERC, JSON and HTML only,
	// answering text/plain when Accept allows none of them. The metadata
	// formats stay at their own URLs ("?info=bibtex").
	NoNegotiation bool `json:"no_negotiation,omitempty"`

	// The metadata formats, by name, whose describedby links the Link
	// headers of resolved ARKs carry (every format is in the linkset).
	// Default: datacite, schemaorg and bibtex for an ARK with metadata
	// (its own or from metadata_defaults), which keep the header under
	// 1 KiB, and none but ?info for an ARK with no metadata at all, whose
	// record in the other formats would hold only unknown values. Formats
	// named here are advertised for every ARK; an empty list advertises
	// none but ?info.
	SignpostFormats []string `json:"signpost_formats,omitempty"`

	// Metadata values for every ARK under a NAAN or shoulder that its own
	// meta does not give, such as an institution's publisher and licence.
	MetadataDefaults []answer.MetadataDefaults `json:"metadata_defaults,omitempty"`

	// The OAI-PMH provider: public and read only, at a path of the site,
	// over the tables and the store as one repository (docs/oai-pmh.md).
	// Off when absent.
	OAI *oai.Config `json:"oai,omitempty"`

	resolver atomic.Pointer[resolve.Resolver]
	loaded   time.Time  // when Provision ran: the datestamp of inline entries
	base     info.Links // from BaseURL
	logger   *zap.Logger
	logs     *logsum.Logger // h.logger for what may repeat with every request
	live     pool.Live
	entries  *entriesCollector // the config's caddy_ark_table_entries
	stores   handlerStore
	minters  mint.Minters
	console  *console.Console // the API's console, when it has one
	ezid     *ezid.Server     // the API's EZID API, when it has one
	stats    handlerStats
	checks   handlerChecks
	answers  answer.Answerer // the answer path
}

// CaddyModule returns the Caddy module information.
func (*Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.ark",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision registers the metrics, parses the ?info page, opens the
// store, loads the tables, or shares them with the config being replaced,
// builds the resolver and starts watching.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.logs = logsum.New(h.logger, logEvery)
	h.loaded = time.Now()
	// Caddy provisions before it validates: check the bounds before
	// anything is allocated by them.
	if err := h.Validate(); err != nil {
		return err
	}
	h.base, _ = answer.ParseBaseURL(h.BaseURL)
	if err := h.joinMetrics(ctx); err != nil {
		return err
	}
	var err error
	if h.API != nil {
		h.API.StopWithServer(ctx)
		h.API.EZIDBinding = ezid.ImportBinding
		if err := h.API.Provision(); err != nil {
			return err
		}
		if h.ezid, err = ezid.New(ctx, h.API); err != nil {
			return err
		}
		if h.API.UI != nil {
			// The console is named by its API's prefix and its store:
			// consoles under the same prefix of the same store act on the
			// same records, and a configuration's does from one reload to
			// the next.
			h.useDefaultStore()
			if h.console, err = console.New(h.API, h.API.Prefix+"\x00"+string(h.StoreRaw)); err != nil {
				return err
			}
		}
	}
	infoPage, err := info.LoadPage(h.InfoTemplate)
	if err != nil {
		return err
	}
	if h.OAI != nil {
		if err := h.OAI.Provision(ctx); err != nil {
			return err
		}
	}
	if h.minters, err = mint.Compile(h.Minters); err != nil {
		return err
	}
	openStore, err := h.openStore(ctx)
	if err != nil {
		return err
	}
	t, err := h.live.Open(pool.Files{Paths: h.Tables, Entries: h.Entries, Verify: h.VerifyTables, Resident: h.ResidentTables, Logger: h.logger})
	if err != nil {
		h.closeStore()
		return err
	}
	if openStore == nil {
		return h.serve(ctx, t, infoPage)
	}
	// The store opens when the configuration runs: check now what
	// needs no store.
	rs, err := resolve.New(h.resolverOptions(t))
	if err != nil {
		return err
	}
	rs.Close()
	h.stores.ready = make(chan struct{})
	return runstart.OnStart(ctx, func() error {
		err := openStore()
		if err == nil {
			err = h.serve(ctx, t, infoPage)
		}
		if err != nil {
			h.stores.readyErr = caddyhttp.Error(http.StatusServiceUnavailable, err)
		}
		close(h.stores.ready)
		return err
	})
}

// serve builds the resolver over table t, with the store open, and starts
// the statistics, the answer path (with infoPage for ?info in HTML), the
// target checks and the table watcher; then requests are served. On error
// Caddy calls Cleanup, which releases the rest.
func (h *Handler) serve(ctx caddy.Context, t table.Table, infoPage *htmltemplate.Template) error {
	rs, err := h.newResolver(t)
	if err != nil {
		return err
	}
	if err := h.openStats(rs); err != nil {
		rs.Close()
		return err
	}
	h.resolver.Store(rs)
	if err := h.provisionAnswers(infoPage); err != nil {
		return err
	}
	if err := h.startChecks(ctx); err != nil {
		return err
	}
	if h.Watch {
		h.live.Watch(time.Duration(h.WatchInterval), h.swapTable, h.tablesChanged)
	}
	return nil
}

// swapTable builds a resolver for t, a new version of the table files
// that the watcher loaded, and swaps it in: requests that have the old
// resolver finish with it, later ones get the new one, with a new, empty
// cache. The old cache is closed at once, so that its memory is not held
// until the old resolver is collected: requests still using it miss,
// which is safe (see resolutionCache).
func (h *Handler) swapTable(t table.Table) error {
	rs, err := h.newResolver(t)
	if err != nil {
		return err
	}
	if old := h.resolver.Swap(rs); old != nil {
		old.Close()
	}
	return nil
}

// newResolver builds a resolver for table tbl from the configuration:
// templates and a new cache.
func (h *Handler) newResolver(tbl table.Table) (*resolve.Resolver, error) {
	o := h.resolverOptions(tbl)
	if h.CacheSize >= 0 {
		c, err := newResolutionCache(h.cacheSize())
		if err != nil {
			return nil, err
		}
		o.Cache = c
	}
	rs, err := resolve.New(o)
	if err != nil {
		if o.Cache != nil {
			o.Cache.Close()
		}
		return nil, err
	}
	if err := rs.Unchecked(); err != nil {
		h.logger.Warn("the table could not be checked against the store, which is unavailable: an identifier both assign is answered from the table", zap.Error(err))
	}
	return rs, nil
}

// provisionAnswers sets up the answer path from the configuration, with
// infoPage for ?info in HTML.
func (h *Handler) provisionAnswers(infoPage *htmltemplate.Template) error {
	linkCache := 0
	if h.CacheSize >= 0 {
		linkCache = h.cacheSize()
	}
	return h.answers.Provision(answer.Config{Base: h.base, Organization: h.Organization, Ready: h.Ready, InfoPage: infoPage,
		NoSignposting: h.NoSignposting, NoNegotiation: h.NoNegotiation, SignpostFormats: h.SignpostFormats,
		MetadataDefaults: h.MetadataDefaults, LinkCache: linkCache, Store: h.stores.store, TargetsChecked: h.TargetsCheck != nil,
		Stats: h.stats.collector, Logger: h.logger, Logs: h.logs})
}

// resolverOptions is the configuration's resolver over table tbl, with
// the store when it is open, without caches.
func (h *Handler) resolverOptions(tbl table.Table) resolve.Options {
	foreign := defaultForeign
	switch h.Foreign {
	case "":
	case "404":
		foreign = ""
	default:
		foreign = strings.TrimSuffix(h.Foreign, "/")
	}
	return resolve.Options{Table: tbl, NAANs: h.NAANs, Templates: h.Templates, Foreign: foreign, MaxLength: h.maxLength(),
		Policies: h.Policies, Store: h.stores.store, StoreCache: h.stores.cache, Minters: h.minters}
}

func (h *Handler) maxLength() int {
	if h.MaxLength == 0 {
		return defaultMaxLength
	}
	return h.MaxLength
}

func (h *Handler) cacheSize() int {
	if h.CacheSize == 0 {
		return defaultCacheSize
	}
	return h.CacheSize
}

// Validate checks the parts of the configuration that need no loading.
func (h *Handler) Validate() error {
	if h.MaxLength < 0 || h.MaxLength > table.MaxIdentifierLength {
		return fmt.Errorf("max_length %d: must be between 1 and %d", h.MaxLength, table.MaxIdentifierLength)
	}
	if h.OAI != nil {
		if err := h.OAI.Validate(); err != nil {
			return err
		}
	}
	if h.CacheSize < -1 || h.CacheSize > maxCacheSize {
		return fmt.Errorf("cache_size %d: must be between 1 and %d, or -1 for no cache", h.CacheSize, maxCacheSize)
	}
	if h.WatchInterval < 0 || h.WatchInterval > 0 && time.Duration(h.WatchInterval) < minWatchInterval {
		return fmt.Errorf("watch_interval %v: must be at least %v", time.Duration(h.WatchInterval), minWatchInterval)
	}
	if _, err := answer.ParseBaseURL(h.BaseURL); err != nil {
		return err
	}
	apiPrefix := ""
	if h.API != nil {
		apiPrefix = h.API.Prefix
	}
	if err := answer.CheckReadyPath(h.Ready, h.API != nil, apiPrefix); err != nil {
		return err
	}
	if err := answer.CheckFormatNames(h.SignpostFormats); err != nil {
		return fmt.Errorf("signpost_formats: %v", err)
	}
	if err := answer.CheckMetadataDefaults(h.MetadataDefaults); err != nil {
		return err
	}
	if h.Stats != nil {
		if err := h.Stats.Validate(); err != nil {
			return err
		}
	}
	return checkForeign(h.Foreign)
}

// checkForeign checks a foreign setting: "" for the default, an absolute
// http(s) URL, or 404.
func checkForeign(foreign string) error {
	if foreign != "" && foreign != "404" {
		u, err := url.Parse(foreign)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("foreign %q: must be an absolute http(s) URL or 404", foreign)
		}
	}
	return nil
}

// Cleanup writes the statistics not written yet, stops the watcher and
// the cache's goroutines, closes the console, and releases the table and the metrics. Caddy calls it once the config's servers have
// stopped, so the handler drops its resolver: the table's memory can then
// be given back at once (see pool.ReturnMemory) instead of when Caddy lets go
// of the old config.
func (h *Handler) Cleanup() error {
	if h.API != nil {
		h.API.Stop()
	}
	if h.console != nil {
		h.console.Close()
	}
	h.closeStats()
	h.live.StopWatching()
	h.stopChecks()
	h.closeStore()
	h.leaveMetrics()
	h.answers.Close()
	if h.logs != nil {
		h.logs.Close()
	}
	if rs := h.resolver.Swap(nil); rs != nil {
		rs.Close()
	}
	if h.live.Release() {
		go pool.ReturnMemory()
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
