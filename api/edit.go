package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// Edit makes the change that change works out from the binding of id (as
// Put takes it), for who: change gets the binding as stored, nil when
// there is none, and returns the binding id is to have, which may be a
// name reserved with a target and metadata (status 0). The binding is
// checked as every write of the API is (scopes, identifier, target,
// metadata; status 410 only through Withdraw), written on condition that
// it has not changed since it was read (change then runs again, up to
// three times), and recorded in the history under who's name. An error
// of change is returned as it is; any other is a refusal whose status
// ErrorStatus gives. It returns the binding as stored and whether it is
// new. EZID's API is its caller: its create, update and delete are such
// changes.
func (a *API) Edit(ctx context.Context, s Site, who *Caller, id string, change func(cur *store.Binding) (*store.Binding, error)) (stored *store.Binding, created bool, err error) {
	ss, key, err := a.sessionFor(s, who, id, true)
	if err != nil {
		return nil, false, err
	}
	for attempt := 1; ; attempt++ {
		stored, created, err = ss.editOnce(ctx, key, change)
		if errors.Is(err, store.ErrPrecondition) && attempt < patchAttempts {
			continue // changed between read and write: work it out again
		}
		var ce changeError
		switch {
		case errors.As(err, &ce):
			return nil, false, ce.err
		case err != nil:
			return nil, false, failed(storeErrorOf(key, err))
		}
		return stored, created, nil
	}
}

// changeError is an error of Edit's change, which Edit returns as it is.
type changeError struct{ err error }

func (e changeError) Error() string { return e.err.Error() }

// editOnce reads the binding of key, has change work out the next one and
// writes it on condition that the binding is still the one read.
func (ss *session) editOnce(ctx context.Context, key string, change func(cur *store.Binding) (*store.Binding, error)) (*store.Binding, bool, error) {
	cur, _, err := ss.store.Get(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		cur = nil
	case err != nil:
		return nil, false, err
	}
	next, err := change(cur)
	if err != nil {
		return nil, false, changeError{err}
	}
	b, err := ss.a.checkStored(key, next)
	if err != nil {
		return nil, false, err
	}
	wr := store.Write{Binding: *b, By: ss.key.name, Create: cur == nil}
	if cur != nil {
		wr.IfVersion = cur.Version
	}
	stored, err := ss.store.Apply(ctx, wr)
	if err != nil {
		return nil, false, err
	}
	countWrites(wr.By, 1)
	return stored, cur == nil, nil
}

// checkStored checks a binding that Edit or MintBound is to store for key,
// as checkBinding checks a request: a name reserved with a target and
// metadata (status 0) is checked as it will be once bound (302), or, with
// no target, for its metadata alone.
func (a *API) checkStored(key string, b *store.Binding) (*store.Binding, error) {
	if b.Status == http.StatusGone {
		return nil, refuse(http.StatusBadRequest, "%s: status 410: withdraw an identifier with POST withdraw/<id> and a reason", key)
	}
	pass := b.Passthrough
	req := &BindRequest{Target: b.Target, Status: b.Status, Passthrough: &pass, Meta: b.Meta}
	if b.Status != 0 || b.Target != "" {
		if req.Status == 0 {
			req.Status = http.StatusFound
		}
		checked, err := a.checkBinding(key, req)
		if err != nil {
			return nil, err
		}
		checked.Status = b.Status
		return checked, nil
	}
	e := table.Entry{ID: key, Status: http.StatusGone, Passthrough: &pass, Meta: b.Meta}
	if _, _, _, err := e.Compile(); err != nil {
		return nil, refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	return &store.Binding{Key: key, Passthrough: pass, Meta: b.Meta}, nil
}

// storeErrorOf returns err as a refusal: as it is when it is one.
func storeErrorOf(key string, err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return storeError(key, err)
}

// Look returns the binding of id (as Put takes it) and when it was first
// stored (its oldest history record), for who, or for someone not signed
// in (who nil): no scope is needed for what the site answers publicly
// anyway (a bound or withdrawn identifier, whose metadata ?info shows),
// and read access for a name minted but not bound (status 0, EZID's
// reserved), which is refused, 403, to anyone else. An identifier this
// site does not manage, or that has no binding, is 404.
func (a *API) Look(ctx context.Context, s Site, who *Caller, id string) (*store.Binding, time.Time, error) {
	ss, err := a.session(s, &Caller{&apiKey{}})
	if err != nil {
		return nil, time.Time{}, err
	}
	key, _, err := table.AssignableKey(id)
	if err != nil {
		return nil, time.Time{}, refuse(http.StatusBadRequest, "%v", err)
	}
	if !ss.managed(key) {
		return nil, time.Time{}, refuse(http.StatusNotFound, "%s: not in this site's store", key)
	}
	b, history, err := ss.store.Get(ctx, key)
	if err != nil {
		return nil, time.Time{}, failed(storeError(key, err))
	}
	if b.Status == 0 && (who == nil || !who.MayRead(key)) {
		return nil, time.Time{}, refuse(http.StatusForbidden, "%s is reserved: only those who may read it see it", key)
	}
	var first time.Time
	if len(history) > 0 {
		first = history[0].Time
	}
	return b, first, nil
}
