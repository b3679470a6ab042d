package api

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
)

// RetargetRequest is the body of POST retarget: every binding under
// Prefix whose target starts with From gets a target starting with To
// instead.
type RetargetRequest struct {
	// The start of the targets to change, as it is written in them
	// (case and all): "https://old.example.org/".
	From string `json:"from"`
	// What replaces From: "https://new.example.org/".
	To string `json:"to"`
	// Only identifiers starting with this (see NormalizePrefix); "" for
	// every identifier the key may write.
	Prefix string `json:"prefix,omitempty"`
	// Only say what would change, with the token that makes the change
	// refuse to apply if that has changed meanwhile.
	DryRun bool `json:"dry_run,omitempty"`
	// The token of a dry run: the change is applied only if it would
	// change the same identifiers at the same versions (else 412).
	Token string `json:"token,omitempty"`
}

// RetargetChange is one change of a retarget, as its preview shows it.
type RetargetChange struct {
	ID  string `json:"id"`
	Old string `json:"old"`
	New string `json:"new"`
}

// RetargetPreview answers a dry run: how many identifiers would change,
// the first PreviewChanges of them, and the token that applies exactly
// them.
type RetargetPreview struct {
	Count   int              `json:"count"`
	Changes []RetargetChange `json:"changes"`
	Token   string           `json:"token"`
}

// RetargetResult answers an applied retarget: how many identifiers
// changed, and the batch that POST batches/<batch>/undo undoes.
type RetargetResult struct {
	Count int    `json:"count"`
	Batch uint64 `json:"batch"`
	// Identifiers that someone else changed while the retarget applied,
	// into something it no longer fits, and that it left as they are.
	Skipped []string `json:"skipped,omitempty"`
}

// PreviewChanges is how many changes a dry run shows.
const PreviewChanges = 20

// BatchSize is the most changes of a retarget or an undo that one part
// of its batch makes (store.BatchWriter.Apply); the batch is whole.
const BatchSize = 500

// batchAttempts is how often a retarget tries a binding that changed
// between its read and its write.
const batchAttempts = 3

// retargetPlan is a checked retarget request.
type retargetPlan struct {
	RetargetRequest
	prefix string // normalized
}

// checkRetarget checks a request.
func checkRetarget(req RetargetRequest) (*retargetPlan, error) {
	p := &retargetPlan{RetargetRequest: req}
	var err error
	if p.prefix, err = NormalizePrefix(req.Prefix); err != nil {
		return nil, err
	}
	switch {
	case req.From == "":
		return nil, refuse(http.StatusBadRequest, `from: give the start of the targets to change, such as "https://old.example.org/"`)
	case req.From == req.To:
		return nil, refuse(http.StatusBadRequest, "from and to are the same: nothing would change")
	}
	if err := checkLine("from", req.From, maxQueryText); err != nil {
		return nil, err
	}
	if err := checkLine("to", req.To, maxQueryText); err != nil {
		return nil, err
	}
	return p, nil
}

// each calls fn with every binding that the plan changes, in identifier
// order, and the binding it makes of it, checked as PUT checks it: a
// result that is not a valid binding is a 400 naming the identifier, or
// when skip is not nil, is passed to skip.
func (p *retargetPlan) each(ctx context.Context, ss *session, skip func(key string), fn func(cur, next *store.Binding) error) error {
	for _, prefix := range ss.key.ranges(true, p.prefix) {
		// Text finds the bindings holding From anywhere, ignoring case,
		// through the store's index; those starting with it are kept.
		q := store.ListQuery{Prefix: prefix, State: store.StateBound, Text: p.From, Want: BatchSize}
		err := ss.store.List(ctx, q, func(b *store.Binding) error {
			next, err := p.retarget(ss, b)
			var ae *apiError
			if skip != nil && errors.As(err, &ae) {
				skip(b.Key)
				return nil
			}
			if err != nil || next == nil {
				return err
			}
			return fn(b, next)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// retarget returns the binding that the plan makes of b, nil when it
// does not change b.
func (p *retargetPlan) retarget(ss *session, b *store.Binding) (*store.Binding, error) {
	rest, ok := strings.CutPrefix(b.Target, p.From)
	if !ok || b.State() != store.StateBound || !ss.key.may(true, b.Key) || !ss.managed(b.Key) {
		return nil, nil
	}
	pass := b.Passthrough
	next, err := ss.a.checkBinding(b.Key, &BindRequest{Target: p.To + rest, Status: b.Status, Passthrough: &pass, Meta: b.Meta})
	if err != nil {
		return nil, err
	}
	return next, nil
}

// preview reads what the plan changes: the count, the first changes and
// the token of them all.
func (p *retargetPlan) preview(ctx context.Context, ss *session) (*RetargetPreview, error) {
	out := &RetargetPreview{Changes: []RetargetChange{}}
	h := sha256.New()
	for _, s := range []string{p.From, p.To, p.prefix} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	err := p.each(ctx, ss, nil, func(cur, next *store.Binding) error {
		out.Count++
		if len(out.Changes) < PreviewChanges {
			out.Changes = append(out.Changes, RetargetChange{ID: cur.Key, Old: cur.Target, New: next.Target})
		}
		h.Write([]byte(cur.Key))
		h.Write(binary.BigEndian.AppendUint64([]byte{0}, cur.Version))
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Token = hex.EncodeToString(h.Sum(nil)[:16])
	return out, nil
}

// Retarget answers POST retarget for who: a dry run's preview, or the
// change applied as one batch (all of it or, if it does not finish,
// none), in parts of BatchSize, recorded in the
// history under the caller's name and the batch's number. Before it
// applies anything it reads what it will change, as the dry run does: an
// invalid result changes nothing (400), and a token that no longer
// matches changes nothing (412). A binding changed by someone else while
// it applies is read again and changed if it still matches. Every change
// is seen by the next request for its identifier.
func (a *API) Retarget(ctx context.Context, s Site, who *Caller, req RetargetRequest) (*RetargetPreview, *RetargetResult, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, nil, err
	}
	p, err := checkRetarget(req)
	if err != nil {
		return nil, nil, err
	}
	pre, err := p.preview(ctx, ss)
	if err != nil {
		return nil, nil, callError(err)
	}
	if req.DryRun {
		return pre, nil, nil
	}
	if req.Token != "" && req.Token != pre.Token {
		return nil, nil, refuse(http.StatusPreconditionFailed, "the identifiers to retarget have changed since the preview (token %s, now %s): preview again", req.Token, pre.Token)
	}
	batch, err := store.NewBatch(ctx, ss.store)
	if err != nil {
		return nil, nil, callError(err)
	}
	ap, err := openApplier(ctx, ss.store, batch, who.Name())
	if err != nil {
		return nil, nil, callError(err)
	}
	ap.again = func(b *store.Binding) (*store.Binding, error) { return p.retarget(ss, b) }
	// What changed since the preview into something that does not fit
	// any more is left as it is, and said.
	skip := func(key string) { ap.missed = append(ap.missed, key) }
	err = p.each(ctx, ss, skip, func(cur, next *store.Binding) error {
		return ap.add(store.Write{Binding: *next, IfVersion: cur.Version, By: who.Name()})
	})
	if err = ap.finish(err); err != nil {
		return nil, nil, callError(err)
	}
	return nil, &RetargetResult{Count: ap.made, Batch: batch, Skipped: ap.missed}, nil
}

// batchApplier makes the writes of one batch (store.OpenBatch) in parts
// of BatchSize: the batch is one change, kept whole or not at all.
type batchApplier struct {
	ctx context.Context
	w   store.BatchWriter
	by  string
	// again returns the write to make of a binding that changed between
	// its read and its write, nil for none; nil when none is to be made.
	again func(*store.Binding) (*store.Binding, error)

	pending []store.Write
	made    int
	missed  []string // the keys whose writes were not made
}

// openApplier opens batch for the writes of by.
func openApplier(ctx context.Context, st store.Store, batch uint64, by string) (*batchApplier, error) {
	w, err := st.OpenBatch(ctx, batch)
	if err != nil {
		return nil, err
	}
	return &batchApplier{ctx: ctx, w: w, by: by}, nil
}

// finish makes the writes still queued and commits the batch, when err,
// the error of queueing them, is nil; else, or if that fails, it aborts
// the batch, which changes nothing. It returns the first error.
func (ap *batchApplier) finish(err error) error {
	if err == nil {
		err = ap.flush()
	}
	if err == nil {
		err = ap.w.Commit(ap.ctx)
	}
	if err != nil {
		ap.made, ap.missed = 0, nil
		_ = ap.w.Abort() // a batch not committed is rolled back by the store in any case
	}
	return err
}

// add queues w, making the queue's writes once it holds BatchSize.
func (ap *batchApplier) add(w store.Write) error {
	ap.pending = append(ap.pending, w)
	if len(ap.pending) < BatchSize {
		return nil
	}
	return ap.flush()
}

// flush makes the queued writes. Those whose binding changed since it was
// read are read again and, when again says so, tried again.
func (ap *batchApplier) flush() error {
	for attempt := 1; len(ap.pending) > 0; attempt++ {
		ws := ap.pending
		ap.pending = nil
		got, err := ap.w.Apply(ap.ctx, ws)
		if err != nil {
			return err
		}
		for i, b := range got {
			if b != nil {
				ap.made++
				countWrites(ap.by, 1)
				continue
			}
			if ap.again == nil || attempt == batchAttempts {
				ap.missed = append(ap.missed, ws[i].Binding.Key)
				continue
			}
			cur, err := ap.w.Get(ap.ctx, ws[i].Binding.Key)
			if err != nil {
				return err
			}
			if cur == nil {
				continue
			}
			next, err := ap.again(cur)
			var ae *apiError
			if errors.As(err, &ae) {
				ap.missed = append(ap.missed, cur.Key) // changed into something this write no longer fits
				continue
			}
			if err != nil {
				return err
			}
			if next != nil {
				ap.pending = append(ap.pending, store.Write{Binding: *next, IfVersion: cur.Version, By: ap.by})
			}
		}
	}
	return nil
}

// retarget answers POST retarget.
func (c *apiCall) retarget() error {
	var req RetargetRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return c.fail(err)
	}
	pre, res, err := c.a.Retarget(c.r.Context(), c.site, &Caller{c.key}, req)
	if err != nil {
		return c.fail(err)
	}
	if pre != nil {
		return writeJSON(c.w, http.StatusOK, pre)
	}
	return writeJSON(c.w, http.StatusOK, res)
}
