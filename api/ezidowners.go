package api

import (
	"context"

	"github.com/caddy-ark/caddy-ark/store"
)

// Bindings calls fn with every binding of the store that who may read,
// in key order, names minted and not bound included (EZID's reserved
// identifiers are such), until fn returns an error, which Bindings then
// returns: EZID's batch download reads the store through it. The store is
// read a batch at a time (store.Store.Each), so memory does not grow with
// its size.
func (a *API) Bindings(ctx context.Context, s Site, who *Caller, fn func(*store.Binding) error) error {
	ss, err := a.session(s, who)
	if err != nil {
		return err
	}
	return ss.store.Each(ctx, func(b *store.Binding) error {
		if !ss.key.may(false, b.Key) {
			return nil
		}
		return fn(b)
	})
}

// Known reports whether name is a person the API's people name (without
// "person:") or an API key's name on s, or, when group is set, a group
// its people name: EZID's "owner" and "ownergroup" of a download name
// such accounts.
func (a *API) Known(ctx context.Context, s Site, name string, group bool) bool {
	if group {
		_, ok := a.people.groupsOrNil()[name]
		return ok
	}
	if _, ok := a.people.personsOrNil()[name]; ok {
		return true
	}
	_, ok := a.CallerNamedOn(ctx, s, name)
	return ok
}

// personsOrNil returns the people given access by name, nil without
// people.
func (p *people) personsOrNil() map[string][]scope {
	if p == nil {
		return nil
	}
	return p.persons
}

// groupsOrNil returns the groups given access, nil without people.
func (p *people) groupsOrNil() map[string][]scope {
	if p == nil {
		return nil
	}
	return p.groups
}
