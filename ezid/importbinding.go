package ezid

import (
	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/store"
)

// ImportBinding returns the binding that the elements of an identifier
// of one of EZID's downloads make, imported: Apply for a new identifier,
// trusted as EZID's own records are (_created, _updated and _ownergroup
// kept; reserved and unavailable given as they are). `caddy ark import`
// and the API's import read EZID's downloads with it.
func ImportBinding(id string, elems []anvl.Element) (*store.Binding, error) {
	return Apply(nil, id, elems, Writer{Trusted: true})
}
