package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
)

// Mint answers POST mint/<shoulder>?n=<count> for who: n new names (1 to
// MintMax) from the minter of shoulder ("ark:12345/x5", in any equivalent
// spelling), each stored before it returns; with bind, each bound at once
// as POST mint/ with a body binds it (see serveMint). Names minted before
// an error are returned with it.
func (a *API) Mint(ctx context.Context, s Site, who *Caller, shoulder string, n int, bind *BindRequest) ([]string, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	sh, err := parseShoulder(shoulder)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > mint.MintMax {
		return nil, refuse(http.StatusBadRequest, "n=%d: %v", n, mint.ErrMintCount)
	}
	if err := ss.mayMint(sh); err != nil {
		return nil, err
	}
	keys, refusal := ss.mint(ctx, sh, n, bind)
	if refusal != nil {
		return keys, refusal
	}
	return keys, nil
}

// MintResult is the answer to POST mint/<shoulder>: the names minted.
type MintResult struct {
	IDs []string `json:"ids"`
}

// shoulder is the shoulder of a mint request: an ARK's NAAN and the
// start of its name.
type shoulder struct {
	naan, sh string
	name     string // "ark:<naan>/<sh>", or "ark:<naan>" for a bare NAAN
}

// parseShoulder reads the shoulder of mint/<shoulder>.
func parseShoulder(raw string) (shoulder, error) {
	naan, sh, err := normalize.ParsePrefix(raw)
	if err != nil {
		return shoulder{}, refuse(http.StatusBadRequest, "%v", err)
	}
	name := "ark:" + naan // a bare NAAN, ark:12345/, is not an ARK
	if sh != "" {
		name += "/" + sh
	}
	return shoulder{naan: naan, sh: sh, name: name}, nil
}

// mayMint refuses a key that may not mint under sh.
func (ss *session) mayMint(sh shoulder) error {
	if !ss.key.mayPrefix(true, sh.naan, sh.sh) {
		return refuse(http.StatusForbidden, "%s may not mint under %s", ss.key.who(), sh.name)
	}
	return nil
}

// serveMint answers POST mint/<shoulder>?n=<count>: n new names (default
// 1, at most MintMax) from the shoulder's minter, each stored before the
// answer. With a body, a binding, each name is bound at once:
// placeholders in its target, such as "{id}", stand for the name's parts
// (see mintPlaceholders).
func (c *apiCall) serveMint(raw string) error {
	sh, err := parseShoulder(raw)
	if err != nil {
		return c.fail(err)
	}
	n := 1
	if q := c.r.URL.Query().Get("n"); q != "" {
		if n, err = strconv.Atoi(q); err != nil || n < 1 || n > mint.MintMax {
			return c.fail(refuse(http.StatusBadRequest, "n=%s: %v", q, mint.ErrMintCount))
		}
	}
	if err := c.mayMint(sh); err != nil {
		return c.fail(err)
	}
	var bind *BindRequest
	if c.r.ContentLength != 0 {
		bind = &BindRequest{}
		if err := readJSON(c.w, c.r, bind); err != nil {
			return c.fail(err)
		}
	}
	keys, refusal := c.mint(c.r.Context(), sh, n, bind)
	switch {
	case refusal == nil:
		return writeJSON(c.w, http.StatusCreated, MintResult{IDs: keys})
	case len(keys) == 0:
		return c.fail(refusal)
	}
	// Some names were minted before the error: they are stored, so say which.
	return writeJSON(c.w, refusal.status, Refusal{Error: refusal.msg, IDs: keys, Status: refusal.status})
}

// mint mints n names under sh, bound as bind says when it is not nil, and
// returns them; names minted before a refusal are returned with it.
func (ss *session) mint(ctx context.Context, sh shoulder, n int, bind *BindRequest) ([]string, *apiError) {
	build, err := ss.mintBinding(ctx, sh, n, bind)
	if err != nil {
		return nil, callError(err)
	}
	return ss.mintWith(ctx, sh, n, build)
}

// mintWith mints n names under sh, each stored with the binding build
// makes for it (nil: reserved with no target), and returns them; names
// minted before a refusal are returned with it.
func (ss *session) mintWith(ctx context.Context, sh shoulder, n int, build func(key string) (store.Binding, error)) ([]string, *apiError) {
	keys, err := ss.site.Mint(ctx, sh.name, n, ss.key.name, build)
	countWrites(ss.key.name, len(keys))
	var refusal *apiError
	switch {
	case errors.As(err, &refusal):
		return nil, refusal
	case err == nil:
		return keys, nil
	case errors.Is(err, mint.ErrNoMinter):
		refusal = refuse(http.StatusNotFound, "%v", err)
	case errors.Is(err, mint.ErrSpaceExhausted):
		refusal = refuse(http.StatusConflict, "%v", err)
	default:
		refusal = storeError(sh.name, err)
	}
	return keys, refusal
}

// mintBinding returns what builds each new name's binding from req, the
// binding of a mint-and-bind; nil for none. Before anything is minted,
// the binding is checked with the names the request may get from the
// minter of sh: a target that is invalid with any of them (too long, say,
// with {id} repeated) refuses the whole request, 400.
func (ss *session) mintBinding(ctx context.Context, sh shoulder, n int, req *BindRequest) (func(key string) (store.Binding, error), error) {
	if req == nil {
		return nil, nil
	}
	target, err := parseMintTarget(req.Target)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%v", err)
	}
	each := *req
	build := func(key string) (*store.Binding, error) {
		each.Target = target.expand(key, sh.naan, sh.sh)
		return ss.a.checkBinding(key, &each)
	}
	names, err := ss.mintableNames(ctx, sh, n)
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
// sh may give, for checking a mint-and-bind's target: those of a bounded
// template all have the same length and kinds of character, so its first
// and last name; those of an unbounded one grow, so the first and last
// that the minter's counter gives now.
func (ss *session) mintableNames(ctx context.Context, sh shoulder, n int) ([]string, error) {
	m := ss.site.Minters().Find("ark:" + sh.naan + "/" + sh.sh)
	if m == nil {
		// Mint answers that there is no minter; check the target anyway.
		return []string{"ark:" + sh.naan + "/" + sh.sh + "0"}, nil
	}
	if m.Bounded() {
		return []string{m.Key(0), m.Key(m.Size() - 1)}, nil
	}
	next, err := ss.store.Count(ctx, m.Counter(), 0)
	if err != nil {
		return nil, storeError(m.Shoulder, err)
	}
	return []string{m.Key(next), m.Key(next + uint64(n) - 1)}, nil
}

// MintBound mints one name under shoulder (as Mint takes it) for who and
// stores it with the binding that build makes for the name's key, checked
// as Edit checks a binding (a name reserved with a target and metadata
// may be stored). A refusal of build stops the mint before the name is
// stored; ErrorStatus gives its status when it is not build's own error,
// which is returned as it is. EZID's API mints so.
func (a *API) MintBound(ctx context.Context, s Site, who *Caller, shoulder string, build func(key string) (*store.Binding, error)) (string, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return "", err
	}
	sh, err := parseShoulder(shoulder)
	if err != nil {
		return "", err
	}
	if err := ss.mayMint(sh); err != nil {
		return "", err
	}
	var buildErr error
	keys, refusal := ss.mintWith(ctx, sh, 1, func(key string) (store.Binding, error) {
		b, err := build(key)
		if err != nil {
			buildErr = err
			return store.Binding{}, refuse(http.StatusBadRequest, "%v", err)
		}
		checked, err := a.checkStored(key, b)
		if err != nil {
			return store.Binding{}, err
		}
		return *checked, nil
	})
	switch {
	case buildErr != nil:
		return "", buildErr
	case refusal != nil:
		return "", refusal
	}
	return keys[0], nil
}
