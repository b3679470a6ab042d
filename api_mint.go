package ark

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// idPlaceholder stands for the new identifier in the target of a
// mint-and-bind.
const idPlaceholder = "{id}"

// mint answers POST mint/<shoulder>?n=<count>: n new names (default 1, at
// most MintMax) from the shoulder's minter, each stored before the answer.
// With a body, a binding, each name is bound at once: "{id}" in its
// target stands for the name.
func (c *apiCall) mint(raw string) error {
	naan, sh, err := parsePrefix(raw)
	if err != nil {
		return c.fail(refuse(http.StatusBadRequest, "%v", err))
	}
	shoulder := "ark:" + naan // a bare NAAN, ark:12345/, is not an ARK
	if sh != "" {
		shoulder += "/" + sh
	}
	n := 1
	if q := c.r.URL.Query().Get("n"); q != "" {
		if n, err = strconv.Atoi(q); err != nil || n < 1 || n > MintMax {
			return c.fail(refuse(http.StatusBadRequest, "n=%s: %v", q, ErrMintCount))
		}
	}
	if !c.key.mayPrefix(true, naan, sh) {
		return c.fail(refuse(http.StatusForbidden, "key %s may not mint under %s", c.key.name, shoulder))
	}
	bind, err := c.mintBinding("ark:" + naan + "/" + sh)
	if err != nil {
		return c.fail(err)
	}
	keys, err := c.h.Mint(c.r.Context(), shoulder, n, c.key.name, bind)
	var refusal *apiError
	switch {
	case err == nil:
		return writeJSON(c.w, http.StatusCreated, map[string]any{"ids": keys})
	case errors.Is(err, ErrNoMinter):
		refusal = refuse(http.StatusNotFound, "%v", err)
	case errors.Is(err, ErrSpaceExhausted):
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
// body, and returns what builds each new name's binding. The target is
// checked with a name in place of {id} before anything is minted.
func (c *apiCall) mintBinding(prefix string) (func(key string) Binding, error) {
	if c.r.ContentLength == 0 {
		return nil, nil
	}
	var req bindRequest
	if err := readJSON(c.w, c.r, &req); err != nil {
		return nil, err
	}
	target := req.Target
	build := func(key string) (*Binding, error) {
		req.Target = strings.ReplaceAll(target, idPlaceholder, key)
		return c.binding(key, &req)
	}
	if _, err := build(prefix + "0"); err != nil {
		return nil, err
	}
	return func(key string) Binding {
		b, err := build(key)
		if err != nil {
			// A minted name is letters and digits, like the one checked.
			return Binding{Key: key}
		}
		return *b
	}, nil
}
