package ezid

import (
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
)

// identifierPlaceholder stands for the minted identifier in a mint's
// _target, as EZID replaces it.
const identifierPlaceholder = "${identifier}"

// mint answers POST shoulder/<shoulder>: a new name from the shoulder's
// minter, created with the body's elements, "success: <identifier>", 201.
func (c *call) mint(raw string) error {
	who, err := c.signedIn()
	if err != nil {
		return c.answer(err)
	}
	elems, err := c.readElements()
	if err != nil {
		return c.answer(err)
	}
	if err := c.options(nil); err != nil {
		return c.answer(err)
	}
	raw = strings.TrimSpace(raw)
	naan, sh, err := normalize.ParsePrefix(raw)
	if err != nil || c.site.Minters().Find("ark:"+naan+"/"+sh) == nil {
		// EZID looks the shoulder up before it asks who may use it.
		return c.answer(badRequest("no such shoulder"))
	}
	if err := checkOwner(who, elems); err != nil {
		return c.answer(err)
	}
	// The elements are checked before a name is minted, with a name of
	// the shoulder standing for it.
	stand := "ark:" + naan + "/" + sh + "0"
	if _, err := Apply(nil, stand, withIdentifier(elems, stand), c.writer(who, stand)); err != nil {
		return c.answer(err)
	}
	key, err := c.s.api.MintBound(c.r.Context(), c.site, who, raw, func(key string) (*store.Binding, error) {
		return Apply(nil, key, withIdentifier(elems, key), c.writer(who, key))
	})
	if err != nil {
		if st := api.ErrorStatus(err); st == http.StatusNotFound {
			err = badRequest("no such shoulder")
		}
		return c.answer(err)
	}
	return c.success(Spell(key), http.StatusCreated, nil)
}

// withIdentifier returns elems with "${identifier}" in _target replaced
// by key in EZID's spelling.
func withIdentifier(elems []anvl.Element, key string) []anvl.Element {
	out := make([]anvl.Element, len(elems))
	for i, e := range elems {
		if e.Name == TargetElement {
			e.Value = strings.ReplaceAll(e.Value, identifierPlaceholder, Spell(key))
		}
		out[i] = e
	}
	return out
}
