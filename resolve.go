package ark

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

// resolver answers "what is at this identifier?" from one table and one
// configuration. It never changes; a new table means a new resolver.
type resolver struct {
	table       table.Table
	templates   []template          // sorted by sortTemplates
	ours        map[string]struct{} // NAANs this site answers for: never forwarded
	foreign     string              // global resolver URL, "" to answer 404
	foreignHost string              // its host name: a request to it is never forwarded there
	parser      normalize.Parser
	cache       *resolutionCache // nil when caching is off
	policies    policies         // persistence statements by NAAN and shoulder
	store       store.Store      // read after the table; nil when there is none
	stored      *storeCache      // the store's answers by key; nil when caching is off
	minters     mint.Minters     // for check characters
}

// resolution is what a request core resolves to. It is shared through the
// cache and never modified.
type resolution struct {
	outcome outcome
	status  int
	reason  string // why a refusal, for the response body

	key      string // normalized identifier
	ark      normalize.ARK
	isARK    bool
	how      string // "exact", "inherited", "template" or "foreign"
	via      string // the key, ancestor or template prefix that resolved it
	suffix   string // what passthrough appended, normalized
	shoulder string // for {http.ark.shoulder}: the template's shoulder, else the first-digit one
	entry    *table.Assignment
	tmpl     *template
	target   string   // built target for table and foreign answers (no request query)
	local    *url.URL // target parsed, for a table entry served in place
	live     bool     // the store was asked: not cached by request core
	err      error    // why the store could not be asked (503)
}

// resolve returns the resolution of core, the escaped request path without
// its leading "/" and without query. An ARK spelled in normal form that is
// in the table, or bound in the store cache, is answered straight from it,
// and a core that does not parse is refused straight away: all cost less
// than a round trip through the cache (BENCHMARKS.md). The cache is in front of the rest: repaired
// spellings, ancestors, templates, foreign and unknown identifiers.
func (rs *resolver) resolve(ctx context.Context, core string) *resolution {
	if isURN(core) {
		return rs.cached(core, func() *resolution { return rs.computeURN(ctx, core) })
	}
	a, err := rs.parser.ParseARK(core)
	if err != nil {
		return refusal(err) // costs less than asking the cache
	}
	if a.Key() == core {
		if e, ok := rs.table.Lookup(core); ok {
			return (&resolution{key: core, ark: a, isARK: true, shoulder: a.Shoulder()}).fromEntry(e, "exact", core, "")
		}
		if res := rs.cachedStoreBinding(a); res != nil {
			return res
		}
	}
	return rs.cached(core, func() *resolution { return rs.computeARK(ctx, a) })
}

// cached returns the cached resolution of core, or computes and caches it.
// A resolution the store took part in is not cached by core: the store's
// own cache holds its answers by key, where a change can reach them.
func (rs *resolver) cached(core string, compute func() *resolution) *resolution {
	if rs.cache == nil {
		return compute()
	}
	if res, ok := rs.cache.get(core); ok {
		return res
	}
	res := compute()
	if !res.live {
		rs.cache.set(core, res)
	}
	return res
}

func isURN(core string) bool { return len(core) >= 4 && strings.EqualFold(core[:4], "urn:") }

// computeARK resolves a parsed ARK.
func (rs *resolver) computeARK(ctx context.Context, a normalize.ARK) *resolution {
	if a.NAAN() == normalize.InvalidNAAN {
		return &resolution{outcome: outcomeInvalid, status: http.StatusBadRequest,
			reason: "NAAN " + normalize.InvalidNAAN + " is reserved for invalid ARKs"}
	}
	res := &resolution{key: a.Key(), ark: a, isARK: true, shoulder: a.Shoulder()}
	if e, ok := rs.table.Lookup(res.key); ok {
		return res.fromEntry(e, "exact", res.key, "")
	}
	if _, ours := rs.ours[a.NAAN()]; ours && rs.store != nil {
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
			res.tmpl, res.how, res.status, res.outcome = t, "template", t.status, outcomeOf(t.status)
			res.via = "ark:" + t.naan
			if t.shoulder != "" {
				res.via += "/" + t.shoulder
				res.shoulder = t.shoulder
			}
			res.suffix = a.Qualifier()
			if !urlpath.LocalPathSafe("/" + a.Name() + res.suffix) {
				return unsafeQualifier(res.key)
			}
			if !t.suffixed {
				if refused := res.variantAfterSlash(targetPath(t.target), res.suffix); refused != nil {
					return refused
				}
			}
			return res
		}
	}
	if _, ours := rs.ours[a.NAAN()]; !ours && rs.foreign != "" {
		res.how, res.outcome, res.status = "foreign", outcomeForeign, http.StatusFound
		res.target = rs.foreign + "/" + res.key
		return res
	}
	if m := rs.minters.Covering(a.NAAN(), a.Name()); m != nil && !mint.CheckMatches(a.NAAN()+"/"+a.Name()) {
		res.notFound()
		res.reason = res.key + " is not assigned here: its check character does not match (a likely transcription error)"
		return res
	}
	return res.notFound()
}

func (rs *resolver) computeURN(ctx context.Context, core string) *resolution {
	u, err := rs.parser.ParseURN(core)
	if err != nil {
		return refusal(err)
	}
	res := &resolution{key: u.Key()}
	if e, ok := rs.table.Lookup(res.key); ok {
		return res.fromEntry(e, "exact", res.key, "")
	}
	if rs.store != nil {
		res.live = true
		found, err := rs.storeLookup(ctx, []string{res.key})
		if err != nil {
			return storeUnavailable(res.key, err)
		}
		if found[0] != nil {
			if found[0].Status == 0 {
				return res.minted()
			}
			return res.fromEntry(found[0], "exact", res.key, "")
		}
	}
	return res.notFound()
}

// fromEntry answers with a table entry, reached through via with suffix
// still to append.
func (res *resolution) fromEntry(e *table.Assignment, how, via, suffix string) *resolution {
	if e == table.Unreadable {
		return tableUnreadable(res.key)
	}
	res.entry, res.how, res.via, res.suffix = e, how, via, suffix
	res.status, res.outcome = e.Status, outcomeOf(e.Status)
	if e.Status == http.StatusGone {
		res.reason = res.key + " has been withdrawn; it will not be assigned again"
		return res
	}
	if suffix != "" {
		if refused := res.checkSuffix(e.Target, suffix); refused != nil {
			return refused
		}
	}
	res.target = urlpath.JoinTarget(e.Target, suffix, "")
	if res.outcome == outcomeInPlace {
		res.local = localURL(res.target)
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
func (res *resolution) checkSuffix(target, suffix string) *resolution {
	base := targetPath(target) // joinTarget puts the suffix before the query or fragment
	if refused := res.variantAfterSlash(base, suffix); refused != nil {
		return refused
	}
	var b urlpath.Built
	b.Add(base, false)
	b.Add(suffix, true)
	if err := b.Check(); err != nil || !urlpath.LocalPathSafe(suffix) {
		return unsafeQualifier(res.key)
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
// target that ends in "/" (a directory, or a URL with no path): it would
// name a hidden file, which is not something the entry or template
// assigns: 404 saying why. It returns nil for anything else.
func (res *resolution) variantAfterSlash(path, suffix string) *resolution {
	if !strings.HasSuffix(path, "/") || !strings.HasPrefix(suffix, ".") {
		return nil
	}
	refused := (&resolution{key: res.key, ark: res.ark, isARK: res.isARK, shoulder: res.shoulder}).notFound()
	refused.reason += `: the variant "` + suffix + `" cannot be appended to the target of ` + res.via + `, which ends in "/"`
	return refused
}

// unsafeQualifier refuses an ARK whose qualifier would make a segment
// that the rule of segments.go forbids.
func unsafeQualifier(key string) *resolution {
	return &resolution{outcome: outcomeInvalid, status: http.StatusBadRequest, reason: key + ": " + urlpath.ErrDotSegment.Error()}
}

func (res *resolution) notFound() *resolution {
	res.outcome, res.status = outcomeNotFound, http.StatusNotFound
	res.reason = res.key + " is not assigned here"
	return res
}

// refusal turns a normalization error into a 400 or 414 resolution.
func refusal(err error) *resolution {
	if errors.Is(err, normalize.ErrTooLong) {
		return &resolution{outcome: outcomeTooLong, status: http.StatusRequestURITooLong, reason: err.Error()}
	}
	return &resolution{outcome: outcomeInvalid, status: http.StatusBadRequest, reason: err.Error()}
}
