package oai

import (
	"net/http"
	"time"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// item is one record of the repository: an identifier as the table or
// the store assigns it, with its datestamp.
type item struct {
	key       string
	target    string
	status    int
	meta      map[string]string
	reason    string
	datestamp time.Time // to the second, UTC

	seq uint64 // its history record, for a store's
	pos int    // its position, for a table's
}

func tableItem(key string, a *table.Assignment, stamp time.Time, pos int) item {
	return item{key: key, target: a.Target, status: a.Status, meta: a.Meta, datestamp: stamp, pos: pos}
}

func storeItem(b *store.Binding, seq uint64) item {
	it := item{key: b.Key, target: b.Target, status: b.Status, meta: b.Meta, reason: b.Reason,
		datestamp: b.Updated.UTC().Truncate(time.Second), seq: seq}
	if reason, ok := b.Unavailable(); ok {
		// EZID's "unavailable": a tombstone, as the resolver answers it.
		it.status, it.reason = http.StatusGone, reason
	}
	return it
}

// deleted reports whether the record is a withdrawn identifier's.
func (it *item) deleted() bool { return it.status == http.StatusGone }

// record builds the metadata record of it.
func (it *item) record(links info.Links, organization string) *metadata.Record {
	return metadata.New(metadata.Identifier{ID: it.key, URL: links.IdentifierURL(it.key), Resolver: links.Base + "/",
		Target: it.target, Status: it.status, Reason: it.reason}, it.meta, nil, organization)
}
