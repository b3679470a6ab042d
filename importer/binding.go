package importer

import (
	"maps"
	"net/http"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// defaultReason is the Reason of a withdrawn entry imported into a store
// without one.
const defaultReason = `withdrawn in an imported table, which gave no "reason" in its meta`

// EntryOf returns b as a table entry, as exports write it: the target and
// status as stored, passthrough only when false, and a withdrawn
// binding's Reason as the metadata key table.ReasonMeta (it replaces one
// that the metadata holds). A name minted but not bound yet (status 0)
// has no entry: a table cannot hold it, and exports leave it out.
func EntryOf(b *store.Binding) table.Entry {
	e := table.Entry{ID: b.Key, Target: b.Target, Status: b.Status, Meta: b.Meta}
	if !b.Passthrough {
		e.Passthrough = new(bool)
	}
	if b.Reason != "" {
		e.Meta = maps.Clone(b.Meta)
		if e.Meta == nil {
			e.Meta = make(map[string]string, 1)
		}
		e.Meta[table.ReasonMeta] = b.Reason
	}
	return e
}

// Binding validates e as a table loader does and returns the binding it
// makes in a store: the inverse of EntryOf. A withdrawn entry's
// table.ReasonMeta becomes the binding's Reason and leaves its metadata;
// without one, the Reason says that the table gave none. Empty metadata
// is none.
func Binding(e *table.Entry) (*store.Binding, error) {
	key, _, a, err := e.Compile()
	if err != nil {
		return nil, err
	}
	b := &store.Binding{Key: key, Target: a.Target, Status: a.Status, Passthrough: a.Passthrough, Meta: a.Meta}
	if b.Status == http.StatusGone {
		b.Reason = b.Meta[table.ReasonMeta]
		if b.Reason == "" {
			b.Reason = defaultReason
		}
		b.Meta = maps.Clone(b.Meta)
		delete(b.Meta, table.ReasonMeta)
	}
	if len(b.Meta) == 0 {
		b.Meta = nil
	}
	return b, nil
}
