package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
)

// UndoResult answers POST batches/<batch>/undo.
type UndoResult struct {
	// How many identifiers were given back what the batch changed.
	Restored int `json:"restored"`
	// The identifiers left as they are: changed again since the batch
	// (or withdrawn).
	Skipped []string `json:"skipped"`
	// The batch of the undo itself, which can be undone in turn.
	Batch uint64 `json:"batch"`
}

// Undo answers POST batches/<batch>/undo for who: every identifier that
// the batch changed and that has not changed since gets back the binding
// it had before, in batches of BatchSize, each whole, as a new batch
// recorded under the caller's name. The caller must be able to write
// every identifier the batch changed, and every binding given back must
// be one that PUT would bind now, since the configuration (in_place, the
// NAANs, the key's scopes) may have changed since the batch: else the
// answer PUT would give (403, 400 naming the identifier), and nothing
// changes. An unknown batch is 404.
func (a *API) Undo(ctx context.Context, s Site, who *Caller, batch uint64) (*UndoResult, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	exists, err := store.BatchExists(ctx, ss.store, batch)
	if err != nil {
		return nil, callError(err)
	}
	if !exists {
		return nil, refuse(http.StatusNotFound, "batch %d: no such batch", batch)
	}
	err = ss.store.BatchChanges(ctx, batch, func(ch *store.Change) error {
		if _, err := ss.managedKey(ch.Key, true); err != nil {
			return refuse(ErrorStatus(err), "%v, which batch %d changed: nothing was undone", err, batch)
		}
		if ch.Old == nil || ch.New == nil {
			return nil // a creation: nothing to give back
		}
		if _, err := ss.restoring(ch, who); err != nil {
			return refuse(ErrorStatus(err), "%v: nothing was undone", err)
		}
		return nil
	})
	if err != nil {
		return nil, callError(err)
	}
	undo, err := store.NewBatch(ctx, ss.store)
	if err != nil {
		return nil, callError(err)
	}
	res := &UndoResult{Skipped: []string{}, Batch: undo}
	ap := &batchApplier{ctx: ctx, store: ss.store, batch: undo, by: who.Name()}
	err = ss.store.BatchChanges(ctx, batch, func(ch *store.Change) error {
		if ch.Old == nil || ch.New == nil {
			res.Skipped = append(res.Skipped, ch.Key) // a creation: nothing to give back
			return nil
		}
		w, err := ss.restoring(ch, who)
		if err != nil {
			return err
		}
		return ap.add(*w)
	})
	if err == nil {
		err = ap.flush()
	}
	if err != nil {
		return nil, callError(err)
	}
	res.Restored, res.Skipped = ap.made, append(res.Skipped, ap.missed...)
	return res, nil
}

// restoring returns the write that gives ch.Key back the binding it had
// before ch, a change that was not a creation, on condition that it has
// not changed since: the old binding checked as PUT checks a binding now,
// since what the API binds (in_place) may have changed since it was
// written.
func (ss *session) restoring(ch *store.Change, who *Caller) (*store.Write, error) {
	old := ch.Old
	pass := old.Passthrough
	b, err := ss.a.checkBinding(ch.Key, &BindRequest{Target: old.Target, Status: old.Status, Passthrough: &pass, Meta: old.Meta})
	if err != nil {
		return nil, err
	}
	return &store.Write{Binding: *b, IfVersion: ch.New.Version, By: who.Name()}, nil
}

// serveBatch answers POST batches/<batch>/undo.
func (c *apiCall) serveBatch(rest string) error {
	id, action, _ := strings.Cut(rest, "/")
	batch, err := strconv.ParseUint(id, 10, 64)
	if err != nil || batch == 0 || action != "undo" {
		return writeAPIError(c.w, http.StatusNotFound, "no such API request: batches/<number>/undo")
	}
	return c.only(http.MethodPost, func() error {
		res, err := c.a.Undo(c.r.Context(), c.site, &Caller{c.key}, batch)
		if err != nil {
			return c.fail(err)
		}
		return writeJSON(c.w, http.StatusOK, res)
	})
}
