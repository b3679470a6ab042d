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
// every identifier the batch changed (else 403, and nothing changes).
// An unknown batch is 404.
func (a *API) Undo(ctx context.Context, s Site, who *Caller, batch uint64) (*UndoResult, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	batcher, ok := ss.store.(store.Batcher)
	if !ok {
		return nil, refuse(http.StatusNotImplemented, "this store cannot make batches")
	}
	exists, err := store.BatchExists(ctx, ss.store, batch)
	if err != nil {
		return nil, callError(err)
	}
	if !exists {
		return nil, refuse(http.StatusNotFound, "batch %d: no such batch", batch)
	}
	err = batcher.BatchChanges(ctx, batch, func(ch *store.Change) error {
		if !ss.key.may(true, ch.Key) {
			return refuse(http.StatusForbidden, "key %s may not write %s, which batch %d changed: nothing was undone", ss.key.name, ch.Key, batch)
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
	ap := &batchApplier{ctx: ctx, store: ss.store, batcher: batcher, batch: undo, by: who.Name()}
	err = batcher.BatchChanges(ctx, batch, func(ch *store.Change) error {
		if ch.Old == nil || ch.New == nil {
			res.Skipped = append(res.Skipped, ch.Key) // a creation: nothing to give back
			return nil
		}
		old := ch.Old
		return ap.add(store.Write{
			Binding:   store.Binding{Key: ch.Key, Target: old.Target, Status: old.Status, Passthrough: old.Passthrough, Meta: old.Meta, Reason: old.Reason},
			IfVersion: ch.New.Version, // not if it changed since
			By:        who.Name(),
		})
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
