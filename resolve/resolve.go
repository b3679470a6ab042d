package resolve

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// Resolver answers "what is at this identifier?" from one table and one
// configuration. It never changes; a new table means a new resolver.
type Resolver struct {
	table       table.Table
	templates   []CompiledTemplate  // sorted by sortTemplates
	ours        map[string]struct{} // NAANs this site answers for: never forwarded
	foreign     string              // global resolver URL, "" to answer 404
	foreignHost string              // its host name: a request to it is never forwarded there
	parser      normalize.Parser
	cache       Cache        // nil when caching is off
	policies    Policies     // persistence statements by NAAN and shoulder
	store       store.Store  // read after the table; nil when there is none
	local       localLooker  // store when it may answer from memory; nil otherwise
	stored      *StoreCache  // the store's answers by key; nil when caching is off
	minters     mint.Minters // for check characters
	unchecked   error        // why the table could not be checked against the store, if it could not
}

// Cache holds resolutions by request core (the handler's is a
// ristretto cache). Get counts the hit or miss; Set may decline to keep
// res; Close empties it for good.
type Cache interface {
	Get(core string) (*Resolution, bool)
	Set(core string, res *Resolution)
	Close()
}

// Resolution is what a request core resolves to. It is shared through the
// Cache and never modified.
type Resolution struct {
	Outcome Outcome
	IsARK   bool // an ARK (Ark is its parse), else a URN
	live    bool // the store was asked: not cached by request core
	Status  int
	Reason  string // why a refusal, for the response body

	Key      string // normalized identifier
	Ark      normalize.ARK
	How      string // "exact", "inherited", "template" or "foreign"
	Via      string // the key, ancestor or template prefix that resolved it
	Suffix   string // what passthrough appended, normalized
	Shoulder string // for {http.ark.shoulder}: the template's shoulder, else the first-digit one
	Entry    *table.Assignment
	Tmpl     *CompiledTemplate
	Target   string   // built target for table and foreign answers (no request query)
	Local    *url.URL // target parsed, for a table entry served in place
	// LandingPage says that the identifier is served in place by its
	// landing page, not by content such as a CSV file (see
	// urlpath.LandingPage): its signposting types it schema.org AboutPage.
	LandingPage bool
	Err         error // why the store could not be asked (503)
}

// Room is where ResolveIn makes a resolution of the caller's own rather
// than allocating one: that of an ARK the table holds, the most common
// answer, with its entry. A Room serves one resolution: what ResolveIn
// returns points into it, and lives as long.
type Room struct {
	res   Resolution
	entry table.Assignment
}

// Holds reports whether res is the resolution made in room.
func (room *Room) Holds(res *Resolution) bool { return res == &room.res }

// Resolve returns the resolution of core, the escaped request path without
// its leading "/" and without query. An ARK that is in the table, in any
// spelling, is answered straight from it, as is one spelled in normal form
// that is bound in the store cache, and a core that does not parse is
// refused straight away: each costs less than a round trip through the
// cache, which a request in a spelling never seen before would make in
// vain (BENCHMARKS.md). The cache is in front of the rest: ancestors,
// templates, foreign and unknown identifiers, the store.
func (rs *Resolver) Resolve(ctx context.Context, core string) *Resolution {
	return rs.ResolveIn(ctx, core, nil)
}

// ResolveIn is Resolve for a caller that gives room for the resolution
// (the handler, one room per answer): an ARK the table holds is resolved
// in room, without an allocation of its own; any other resolution is
// Resolve's, shared through the caches, and room is left alone. A nil
// room is Resolve.
func (rs *Resolver) ResolveIn(ctx context.Context, core string, room *Room) *Resolution {
	if isURN(core) {
		return rs.cached(core, func() *Resolution { return rs.computeURN(ctx, core) })
	}
	a, err := rs.parser.ParseARK(core)
	if err != nil {
		return refusal(err) // costs less than asking the cache
	}
	key := a.Key()
	if e, ok := rs.lookup(key, room); ok {
		var res *Resolution
		if room != nil {
			res = &room.res
		} else {
			res = new(Resolution)
		}
		*res = Resolution{Key: key, Ark: a, IsARK: true, Shoulder: a.Shoulder()}
		return res.fromEntry(e, "exact", key, "")
	}
	if key == core {
		if res := rs.cachedStoreBinding(a); res != nil {
			return res
		}
	}
	return rs.cached(core, func() *Resolution { return rs.computeARK(ctx, a, room) })
}

// lookup returns the table's assignment of key, put in room's when room
// is not nil.
func (rs *Resolver) lookup(key string, room *Room) (*table.Assignment, bool) {
	if room == nil {
		return rs.table.Lookup(key)
	}
	return rs.table.LookupIn(key, &room.entry)
}

// cached returns the cached resolution of core, or computes and caches it.
// A resolution the store took part in is not cached by core: the store's
// own cache holds its answers by key, where a change can reach them.
func (rs *Resolver) cached(core string, compute func() *Resolution) *Resolution {
	if rs.cache == nil {
		return compute()
	}
	if res, ok := rs.cache.Get(core); ok {
		return res
	}
	res := compute()
	if !res.live {
		rs.cache.Set(core, res)
	}
	return res
}

func isURN(core string) bool { return len(core) >= 4 && strings.EqualFold(core[:4], "urn:") }

// computeARK resolves a parsed ARK that the table does not hold (Resolve
// looked). A store-bound answer from a local copy is made in room when
// room is not nil: such an answer is live, never kept by cached.
func (rs *Resolver) computeARK(ctx context.Context, a normalize.ARK, room *Room) *Resolution {
	if a.NAAN() == normalize.InvalidNAAN {
		return &Resolution{Outcome: OutcomeInvalid, Status: http.StatusBadRequest,
			Reason: "NAAN " + normalize.InvalidNAAN + " is reserved for invalid ARKs"}
	}
	_, ours := rs.ours[a.NAAN()]
	if ours && room != nil && rs.store != nil {
		if done := rs.exactFromLocalIn(a, room); done != nil {
			return done
		}
	}
	res := &Resolution{Key: a.Key(), Ark: a, IsARK: true, Shoulder: a.Shoulder()}
	if ours && rs.store != nil {
		if done := rs.fromStore(ctx, res, a); done != nil {
			return done
		}
	}
	for _, anc := range a.Ancestors() {
		if e, ok := rs.table.Lookup(anc.Key); ok {
			if !e.Passthrough {
				return res.notFound() // the nearest assigned ancestor keeps its descendants to itself
			}
			return res.fromEntry(e, "inherited", anc.Key, anc.Suffix)
		}
	}
	for i := range rs.templates {
		if t := &rs.templates[i]; t.matches(a) {
			res.Tmpl, res.How, res.Status, res.Outcome = t, "template", t.status, outcomeOf(t.status)
			res.LandingPage = t.landingPage
			res.Via = "ark:" + t.naan
			if t.shoulder != "" {
				res.Via += "/" + t.shoulder
				res.Shoulder = t.shoulder
			}
			res.Suffix = a.Qualifier()
			if !urlpath.LocalPathSafe("/" + a.Name() + res.Suffix) {
				return unsafeQualifier(res.Key)
			}
			if !t.suffixed {
				if refused := res.variantAfterSlash(targetPath(t.target), res.Suffix); refused != nil {
					return refused
				}
			}
			return res
		}
	}
	if _, ours := rs.ours[a.NAAN()]; !ours && rs.foreign != "" {
		res.How, res.Outcome, res.Status = "foreign", OutcomeForeign, http.StatusFound
		res.Target = rs.foreign + "/" + res.Key
		return res
	}
	if m := rs.minters.Covering(a.NAAN(), a.Name()); m != nil && !mint.CheckMatches(a.NAAN()+"/"+a.Name()) {
		res.notFound()
		res.Reason = res.Key + " is not assigned here: its check character does not match (a likely transcription error)"
		return res
	}
	return res.notFound()
}

func (rs *Resolver) computeURN(ctx context.Context, core string) *Resolution {
	u, err := rs.parser.ParseURN(core)
	if err != nil {
		return refusal(err)
	}
	res := &Resolution{Key: u.Key()}
	if e, ok := rs.table.Lookup(res.Key); ok {
		return res.fromEntry(e, "exact", res.Key, "")
	}
	if rs.store != nil {
		res.live = true
		found, err := rs.storeLookup(ctx, []string{res.Key})
		if err != nil {
			return storeUnavailable(res.Key, err)
		}
		if found[0] != nil {
			if found[0].Status == 0 {
				return res.minted()
			}
			return res.fromEntry(found[0], "exact", res.Key, "")
		}
	}
	return res.notFound()
}

// fromEntry answers with a table entry, reached through via with suffix
// still to append.
func (res *Resolution) fromEntry(e *table.Assignment, how, via, suffix string) *Resolution {
	if e == table.Unreadable {
		return tableUnreadable(res.Key)
	}
	res.Entry, res.How, res.Via, res.Suffix = e, how, via, suffix
	res.Status, res.Outcome = e.Status, outcomeOf(e.Status)
	if e.Status == http.StatusGone {
		res.Reason = res.Key + " has been withdrawn; it will not be assigned again"
		return res
	}
	if suffix != "" {
		if refused := res.checkSuffix(e.Target, suffix); refused != nil {
			return refused
		}
	}
	res.Target = urlpath.JoinTarget(e.Target, suffix, "")
	if res.Outcome == OutcomeInPlace {
		res.Local = localURL(res.Target)
		res.LandingPage = urlpath.LandingPage(res.Target)
	}
	return res
}

// localURL returns a local target as a URL, without parsing one that is a
// plain path: with no "%", the path as written is also its escaped form, so
// it keeps its spelling (a proxy sends it upstream as written). It is nil
// if the target does not parse (it was checked when the entry loaded); the
// handler then parses it again and reports why.
func localURL(target string) *url.URL {
	if !strings.ContainsAny(target, "%?#") {
		return &url.URL{Path: target, RawPath: target}
	}
	u, _ := url.Parse(target)
	return u
}

// checkSuffix refuses a qualifier that cannot be appended to target: a
// variant (".en") after a target that ends in "/" (a directory, or a URL
// with no path) would name a hidden file, which is not something the entry
// assigns: 404; anything else that breaks the rule of segments.go is 400.
func (res *Resolution) checkSuffix(target, suffix string) *Resolution {
	base := targetPath(target) // joinTarget puts the suffix before the query or fragment
	if refused := res.variantAfterSlash(base, suffix); refused != nil {
		return refused
	}
	var b urlpath.Built
	b.Add(base, false)
	b.Add(suffix, true)
	if err := b.Check(); err != nil || !urlpath.LocalPathSafe(suffix) {
		return unsafeQualifier(res.Key)
	}
	return nil
}

// targetPath returns target without its query and fragment.
func targetPath(target string) string {
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		return target[:i]
	}
	return target
}

// variantAfterSlash refuses a variant (".en") appended to the path of a
// Target that ends in "/" (a directory, or a URL with no path): it would
// name a hidden file, which is not something the entry or template
// assigns: 404 saying why. It returns nil for anything else.
func (res *Resolution) variantAfterSlash(path, suffix string) *Resolution {
	if !strings.HasSuffix(path, "/") || !strings.HasPrefix(suffix, ".") {
		return nil
	}
	refused := (&Resolution{Key: res.Key, Ark: res.Ark, IsARK: res.IsARK, Shoulder: res.Shoulder}).notFound()
	refused.Reason += `: the variant "` + suffix + `" cannot be appended to the target of ` + res.Via + `, which ends in "/"`
	return refused
}

// unsafeQualifier refuses an ARK whose qualifier would make a segment
// that the rule of segments.go forbids.
func unsafeQualifier(key string) *Resolution {
	return &Resolution{Outcome: OutcomeInvalid, Status: http.StatusBadRequest, Reason: key + ": " + urlpath.ErrDotSegment.Error()}
}

func (res *Resolution) notFound() *Resolution {
	res.Outcome, res.Status = OutcomeNotFound, http.StatusNotFound
	res.Reason = res.Key + " is not assigned here"
	return res
}

// refusal turns a normalization error into a 400 or 414 resolution.
func refusal(err error) *Resolution {
	if errors.Is(err, normalize.ErrTooLong) {
		return &Resolution{Outcome: OutcomeTooLong, Status: http.StatusRequestURITooLong, Reason: err.Error()}
	}
	return &Resolution{Outcome: OutcomeInvalid, Status: http.StatusBadRequest, Reason: err.Error()}
}

// Table returns the table the resolver reads first.
func (rs *Resolver) Table() table.Table { return rs.table }

// Store returns the store read after the table, nil when there is none.
func (rs *Resolver) Store() store.Store { return rs.store }

// Ours reports whether naan is one of the site's NAANs: its ARKs are never
// sent to the foreign resolver.
func (rs *Resolver) Ours(naan string) bool {
	_, ok := rs.ours[naan]
	return ok
}

// ForeignHost returns the host name of the foreign resolver: a request
// for it is never forwarded there.
func (rs *Resolver) ForeignHost() string { return rs.foreignHost }

// Policies returns the persistence statements by NAAN and shoulder.
func (rs *Resolver) Policies() Policies { return rs.policies }

// Close empties the resolver's cache for good, once the resolver is no
// longer used; the table and the store belong to others.
func (rs *Resolver) Close() {
	if rs.cache != nil {
		rs.cache.Close()
	}
}

// Unchecked returns why the table could not be checked against the store
// when the resolver was built (the store was unavailable), or nil.
func (rs *Resolver) Unchecked() error { return rs.unchecked }
