package resolve

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// storeLookupTimeout bounds a store lookup: a request waits no longer for
// a slow store before it is answered 503.
const storeLookupTimeout = 5 * time.Second

// RetryAfter is the Retry-After of a 503 for an unavailable store, in
// seconds.
const RetryAfter = "5"

// fromStore answers res, an ARK of ours that no table assigns, from the
// store when the store binds it or an ancestor nearer than the table's
// nearest: nearest first, as the table is read. It returns nil when the
// store has nothing to say, leaving res live: its absence came from the
// store too.
func (rs *Resolver) fromStore(ctx context.Context, res *Resolution, a normalize.ARK) *Resolution {
	if done := rs.cachedStoreBinding(a); done != nil {
		return done
	}
	res.live = true
	if done := rs.exactFromLocal(res, nil); done != nil {
		return done
	}
	ancestors := a.Ancestors()
	keys := make([]string, 1, 1+len(ancestors))
	keys[0] = res.Key
	for _, anc := range ancestors {
		if _, ok := rs.table.Lookup(anc.Key); ok {
			break // the table answers from here up
		}
		keys = append(keys, anc.Key)
	}
	found, err := rs.storeLookup(ctx, keys)
	if err != nil {
		return storeUnavailable(res.Key, err)
	}
	if e := found[0]; e != nil {
		if e.Status == 0 {
			return res.minted()
		}
		return res.fromEntry(e, "exact", res.Key, "")
	}
	for i, e := range found[1:] {
		if e == nil || e.Status == 0 {
			continue // a name minted but not bound assigns nothing
		}
		if !e.Passthrough {
			return res.notFound()
		}
		return res.fromEntry(e, "inherited", ancestors[i].Key, ancestors[i].Suffix)
	}
	return nil
}

// cachedStoreBinding answers a, an ARK of ours that no table assigns
// exactly, when the store cache holds a binding of a itself: the store's
// exact binding comes before any ancestor's, so neither the ancestors nor
// the request cache need to be asked. It returns nil otherwise.
func (rs *Resolver) cachedStoreBinding(a normalize.ARK) *Resolution {
	if rs.stored == nil || a.NAAN() == normalize.InvalidNAAN {
		return nil
	}
	if _, ours := rs.ours[a.NAAN()]; !ours {
		return nil
	}
	e, ok := rs.stored.getOne(a.Key())
	if !ok || e == nil || e.Status == 0 {
		return nil
	}
	res := &Resolution{Key: a.Key(), Ark: a, IsARK: true, Shoulder: a.Shoulder(), live: true}
	return res.fromEntry(e, "exact", res.Key, "")
}

// exactFromLocal answers res from a store that answers from memory (a
// local copy) when that store binds res's identifier itself, or has
// minted it: the store's exact binding comes before any ancestor's, so
// neither the ancestors nor a slice of keys are made, as a store asked
// over the network needs them in one round trip. The assignment is put
// in entry when entry is not nil and no store cache will keep it. It
// returns nil otherwise, and when the lookup fails: fromStore then asks
// as for any store, and answers the failure.
func (rs *Resolver) exactFromLocal(res *Resolution, entry *table.Assignment) *Resolution {
	if rs.local == nil {
		return nil
	}
	var epoch uint64
	if rs.stored != nil {
		epoch = rs.stored.now()
	}
	b, found, ok, err := rs.local.LookupOneLocal(res.Key)
	if !found || !ok || err != nil {
		return nil
	}
	var e *table.Assignment
	if entry != nil && rs.stored == nil {
		*entry = assignmentValueOf(&b)
		e = entry
	} else {
		e = assignmentOf(&b)
	}
	if rs.stored != nil {
		rs.stored.putOne(res.Key, e, epoch)
	}
	if e.Status == 0 {
		return res.minted()
	}
	return res.fromEntry(e, "exact", res.Key, "")
}

// exactFromLocalIn is exactFromLocal for a, an ARK of ours that no table
// assigns exactly, answered in room: a store-bound answer from a local
// copy then costs no allocation of its own, as a table's does. It returns
// nil when the store does not answer from memory or has no binding of
// a; room's resolution is then unused.
func (rs *Resolver) exactFromLocalIn(a normalize.ARK, room *Room) *Resolution {
	if rs.local == nil {
		return nil
	}
	room.res = Resolution{Key: a.Key(), Ark: a, IsARK: true, Shoulder: a.Shoulder(), live: true}
	return rs.exactFromLocal(&room.res, &room.entry)
}

// storeLookup returns the store's assignments of keys, nil where it has
// none, from the cache when it holds them all, else in one Lookup.
func (rs *Resolver) storeLookup(ctx context.Context, keys []string) ([]*table.Assignment, error) {
	if rs.stored != nil {
		if as, ok := rs.stored.get(keys); ok {
			return as, nil
		}
	}
	var epoch uint64
	if rs.stored != nil {
		epoch = rs.stored.now()
	}
	bs, err := rs.lookupStore(ctx, keys)
	if err == nil && len(bs) != len(keys) {
		err = fmt.Errorf("the store answered %d keys for %d", len(bs), len(keys))
	}
	if err != nil {
		metrics.Counters.StoreFails.Inc()
		return nil, err
	}
	as := make([]*table.Assignment, len(bs))
	for i, b := range bs {
		if b != nil {
			as[i] = assignmentOf(b)
		}
	}
	if rs.stored != nil {
		rs.stored.put(keys, as, epoch)
	}
	return as, nil
}

// localLooker is a store that may answer lookups from memory, such as
// one read through a local copy (localcopy.Store): LookupLocal and
// LookupOneLocal report false when it cannot, and Lookup must be asked.
type localLooker interface {
	LookupLocal(keys []string) (bs []*store.Binding, ok bool, err error)
	// LookupOneLocal is LookupLocal of one key, whose binding it
	// returns by value: found is false when the store has none.
	LookupOneLocal(key string) (b store.Binding, found, ok bool, err error)
}

// lookupStore asks the store for keys: from memory when it answers so,
// else within storeLookupTimeout, the timer a lookup answered from
// memory has no use for.
func (rs *Resolver) lookupStore(ctx context.Context, keys []string) ([]*store.Binding, error) {
	if rs.local != nil {
		if bs, ok, err := rs.local.LookupLocal(keys); ok {
			return bs, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, storeLookupTimeout)
	defer cancel()
	return rs.store.Lookup(ctx, keys)
}

// assignmentOf returns b as the resolver reads it. A withdrawn binding's
// reason becomes the "reason" of its metadata, where ?info shows it. A
// binding that EZID's "_status" says is unavailable (store.StatusMeta)
// is answered as a tombstone, with its reason, though its target is kept.
func assignmentOf(b *store.Binding) *table.Assignment {
	a := assignmentValueOf(b)
	return &a
}

// assignmentValueOf is assignmentOf, as a value.
func assignmentValueOf(b *store.Binding) table.Assignment {
	meta, status, reason := b.Meta, b.Status, b.Reason
	if r, ok := b.Unavailable(); ok {
		status, reason = http.StatusGone, r
	}
	if reason != "" && meta["reason"] == "" {
		meta = maps.Clone(meta)
		if meta == nil {
			meta = map[string]string{}
		}
		meta["reason"] = reason
	}
	return table.Assignment{Target: urlpath.WithRootPath(b.Target), Status: status, Passthrough: b.Passthrough, Meta: meta}
}

// minted answers a name that was minted but is not bound yet.
func (res *Resolution) minted() *Resolution {
	res.Outcome, res.Status = OutcomeNotFound, http.StatusNotFound
	res.Reason = res.Key + " is minted but not bound to anything yet"
	return res
}

// ErrTableDamaged is the Err of a Resolution refused because the table
// file that may hold the identifier is damaged.
var ErrTableDamaged = errors.New("the table file is damaged")

// tableUnreadable answers an identifier that a damaged table may hold: 503,
// like an unavailable store, never 404. It is not cached: the table is
// reported and replaced by rename.
func tableUnreadable(key string) *Resolution {
	return &Resolution{Key: "", live: true, Err: ErrTableDamaged, Outcome: OutcomeUnavailable,
		Status: http.StatusServiceUnavailable, Reason: key + " cannot be looked up now: its table file is damaged; try again later"}
}

// storeUnavailable answers an identifier the store could not be asked about:
// 503, never 404, which would say that it does not exist.
func storeUnavailable(key string, err error) *Resolution {
	return &Resolution{Key: "", live: true, Err: err, Outcome: OutcomeUnavailable, Status: http.StatusServiceUnavailable,
		Reason: key + " cannot be looked up now: the store is unavailable; try again later"}
}
