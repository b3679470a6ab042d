package ezid

import (
	"net/http"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/store"
)

// get answers GET id/<identifier>: "success: <identifier>" and its
// elements; with prefix_match=yes, those of the longest identifier that
// the requested one starts with, "success: <found> in_lieu_of
// <requested>". Anyone may read what ?info shows anyway; a reserved
// identifier needs read access (401 for someone not signed in).
func (c *call) get(raw string) error {
	who, err := c.who()
	if err != nil {
		return c.answer(err)
	}
	if err := c.options(map[string][]string{"prefix_match": {"yes", "no"}}); err != nil {
		return c.answer(err)
	}
	if scheme, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(raw)), ":"); scheme == "doi" || scheme == "uuid" {
		return c.answer(errNoSuchIdentifier)
	}
	key, err := identifier(raw)
	if err != nil {
		return c.answer(err)
	}
	candidates := []string{key}
	if c.yes("prefix_match") {
		candidates = prefixes(key)
	}
	for _, k := range candidates {
		b, created, err := c.s.api.Look(c.r.Context(), c.site, who, k)
		if err == nil && Deleted(b) || err != nil && api.ErrorStatus(err) == http.StatusNotFound {
			continue
		}
		if err != nil {
			if api.ErrorStatus(err) == http.StatusForbidden && who == nil {
				err = errUnauthorized
			}
			return c.answer(err)
		}
		line := Spell(b.Key)
		if b.Key != key {
			line += " in_lieu_of " + Spell(key)
		}
		return c.success(line, http.StatusOK, Elements(b, View{Created: created, DefaultTarget: c.ezidURL(b.Key)}))
	}
	return c.answer(errNoSuchIdentifier)
}

// prefixes returns key and each shorter identifier it starts with, longest
// first, down to one character after the NAAN's "/" (an ARK) or the
// namespace's ":" (a URN).
func prefixes(key string) []string {
	i := strings.IndexByte(key, '/')
	if !strings.HasPrefix(key, "ark:") || i < 0 {
		i = strings.LastIndexByte(key, ':')
	}
	var out []string
	for n := len(key); n > i+1; n-- {
		out = append(out, key[:n])
	}
	return out
}

// create answers PUT id/<identifier>: the identifier created with the
// body's elements, 201; with update_if_exists=yes an existing one is
// updated instead, 200.
func (c *call) create(raw string) error {
	who, err := c.signedIn()
	if err != nil {
		return c.answer(err)
	}
	elems, err := c.readElements()
	if err != nil {
		return c.answer(err)
	}
	if err := c.options(map[string][]string{"update_if_exists": {"yes", "no"}}); err != nil {
		return c.answer(err)
	}
	key, err := identifier(raw)
	if err != nil {
		return c.answer(err)
	}
	if err := checkOwner(who, elems); err != nil {
		return c.answer(err)
	}
	w, update := c.writer(who, key), c.yes("update_if_exists")
	b, created, err := c.s.api.Edit(c.r.Context(), c.site, who, key, func(cur *store.Binding) (*store.Binding, error) {
		if cur != nil && !Deleted(cur) && !update {
			return nil, badRequest("identifier already exists, cannot create")
		}
		return Apply(cur, key, elems, w)
	})
	if err != nil {
		return c.answer(err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.success(Spell(b.Key), status, nil)
}

// update answers POST id/<identifier>: the body's elements set, an empty
// value deleting its element.
func (c *call) update(raw string) error {
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
	key, err := identifier(raw)
	if err != nil {
		return c.answer(err)
	}
	if err := checkOwner(who, elems); err != nil {
		return c.answer(err)
	}
	w := c.writer(who, key)
	b, _, err := c.s.api.Edit(c.r.Context(), c.site, who, key, func(cur *store.Binding) (*store.Binding, error) {
		if cur == nil || Deleted(cur) {
			return nil, errNoSuchIdentifier
		}
		return Apply(cur, key, elems, w)
	})
	if err != nil {
		return c.answer(err)
	}
	return c.success(Spell(b.Key), http.StatusOK, nil)
}

// delete answers DELETE id/<identifier>: a reserved identifier is deleted
// (DeletedBinding keeps its name from being assigned again); any other is
// refused as EZID refuses it.
func (c *call) delete(raw string) error {
	who, err := c.signedIn()
	if err != nil {
		return c.answer(err)
	}
	if err := c.options(nil); err != nil {
		return c.answer(err)
	}
	key, err := identifier(raw)
	if err != nil {
		return c.answer(err)
	}
	b, _, err := c.s.api.Edit(c.r.Context(), c.site, who, key, func(cur *store.Binding) (*store.Binding, error) {
		if cur == nil || Deleted(cur) {
			return nil, errNoSuchIdentifier
		}
		if state, _ := StatusOf(cur); state != Reserved {
			return nil, badRequest("identifier status does not support deletion")
		}
		deleted := DeletedBinding(key, time.Now())
		return &deleted, nil
	})
	if err != nil {
		return c.answer(err)
	}
	return c.success(Spell(b.Key), http.StatusOK, nil)
}
