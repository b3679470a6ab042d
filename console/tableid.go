package console

import (
	"errors"
	"net/http"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// fromTable returns the page of id, read only, when the API refused to
// read it (409) because a table assigns it: what the table says and which
// file or map does; nil for any other answer. The store never answers for
// such an identifier, so the console cannot change it, but one may open it.
func (p *page) fromTable(id string, err error) *identifierView {
	var ref *refusal
	if !errors.As(err, &ref) || ref.status != http.StatusConflict {
		return nil
	}
	key, _, kerr := table.AssignableKey(id)
	rs := p.site.Resolver()
	if kerr != nil || rs == nil {
		return nil
	}
	by, ok := rs.Table().SourceOf(key)
	if !ok {
		return nil
	}
	b := &store.Binding{Key: key}
	if a, ok := rs.Table().Lookup(key); ok && a != table.Unreadable {
		b.Target, b.Status, b.Passthrough, b.Meta = a.Target, a.Status, a.Passthrough, a.Meta
	}
	v := &identifierView{ID: key, B: b, Meta: sortedMeta(b.Meta), Info: "/" + key + "?info", Table: by}
	if b.Status != 0 {
		v.State = state(b)
	}
	return v
}
