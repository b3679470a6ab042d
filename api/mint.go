package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
)

// mint answers POST mint/<shoulder>?n=<count>: n new names (default 1, at
// most MintMax) from the shoulder's minter, each stored before the answer.
// With a body, a binding, each name is bound at once: placeholders in its
// target, such as "{id}", stand for the name's parts (see mintPlaceholders).
func (c *apiCall) mint(raw string) error {
	naan, sh, err := normalize.ParsePrefix(raw)
	if err != nil {
		return c.fail(refuse(http.StatusBadRequest, "%v", err))
	}
	shoulder := "ark:" + naan // a bare NAAN, ark:12345/, is not an ARK
	if sh != "" {
		shoulder += "/" + sh
	}
	n := 1
	if q := c.r.URL.Query().Get("n"); q != "" {
		if n, err = strconv.Atoi(q); err != nil || n < 1 || n > mint.MintMax {
			return c.fail(refuse(http.StatusBadRequest, "n=%s: %v", q, mint.ErrMintCount))
		}
	}
	if !c.key.mayPrefix(true, naan, sh) {
		return c.fail(refuse(http.StatusForbidden, "key %s may not mint under %s", c.key.name, shoulder))
	}
	bind, err := c.mintBinding(naan, sh, n)
	if err != nil {
		return c.fail(err)
	}
	keys, err := c.site.Mint(c.r.Context(), shoulder, n, c.key.name, bind)
	var refusal *apiError
	switch {
	case errors.As(err, &refusal):
		return c.fail(refusal)
	case err == nil:
		return writeJSON(c.w, http.StatusCreated, map[string]any{"ids": keys})
	case errors.Is(err, mint.ErrNoMinter):
		refusal = refuse(http.StatusNotFound, "%v", err)
	case errors.Is(err, mint.ErrSpaceExhausted):
		refusal = refuse(http.StatusConflict, "%v", err)
	default:
		refusal = storeError(shoulder, err)
	}
	if len(keys) == 0 {
		return c.fail(refusal)
	}
	// Some names were minted before the error: they are stored, so say which.
	return writeJSON(c.w, refusal.status, map[string]any{"status": refusal.status, "error": refusal.msg, "ids": keys})
}

// mintBinding reads the binding of a mint-and-bind, if the request has a
// body, and returns what builds each new name's binding. Before anything is
// minted, the binding is checked with the names the request may get from
// the minter of naan/sh: a target that is invalid with any of them (too
// long, say, with {id} repeated) refuses the whole request, 400.
func (c *apiCall) mintBinding(naan, sh string, n int) (func(key string) (store.Binding, error), error) {
	if c.r.ContentLength == 0 {
		return nil, nil
	}
	var req BindRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return nil, err
	}
	target, err := parseMintTarget(req.Target)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%v", err)
	}
	build := func(key string) (*store.Binding, error) {
		req.Target = target.expand(key, naan, sh)
		return c.binding(key, &req)
	}
	names, err := c.mintableNames(naan, sh, n)
	if err != nil {
		return nil, err
	}
	for _, key := range names {
		if _, err := build(key); err != nil {
			return nil, err
		}
	}
	return func(key string) (store.Binding, error) {
		b, err := build(key)
		if err != nil {
			// A name unlike those checked: an unbounded template that
			// other requests made outgrow its mask meanwhile. Mint stops
			// before it stores the name unbound.
			return store.Binding{}, refuse(http.StatusBadRequest, "%v", err)
		}
		return *b, nil
	}, nil
}

// mintableNames returns names that stand for every name a mint of n from
// naan/sh may give, for checking a mint-and-bind's target: those of a
// bounded template all have the same length and kinds of character, so its
// first and last name; those of an unbounded one grow, so the first and
// last that the minter's counter gives now.
func (c *apiCall) mintableNames(naan, sh string, n int) ([]string, error) {
	m := c.site.Minters().Find("ark:" + naan + "/" + sh)
	if m == nil {
		// Mint answers that there is no minter; check the target anyway.
		return []string{"ark:" + naan + "/" + sh + "0"}, nil
	}
	if m.Bounded() {
		return []string{m.Key(0), m.Key(m.Size() - 1)}, nil
	}
	next, err := c.store.Count(c.r.Context(), m.Counter(), 0)
	if err != nil {
		return nil, storeError(m.Shoulder, err)
	}
	return []string{m.Key(next), m.Key(next + uint64(n) - 1)}, nil
}
