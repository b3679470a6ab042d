package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
)

// keysInput is what the form that makes a key holds.
type keysInput struct {
	Name    string
	Scopes  string // space-separated
	Label   string
	Expires string // a day, YYYY-MM-DD, from which the key stops working; "" for never
}

// keysView is what the keys page shows: the stored keys, the form that
// makes one, and the secret of the key just made, this once.
type keysView struct {
	In     keysInput
	Keys   []api.KeyInfo
	Made   *api.NewKey
	Scopes []string // the signed-in key's, which a new key may not exceed
}

// keysPage shows the keys kept in the store, to an admin.
func (p *page) keysPage(in keysInput, status int, notice, problem string, made *api.NewKey) error {
	keys, err := p.c.api.StoredKeys(p.r.Context(), p.site, p.sess.key)
	if err != nil {
		return p.problem(api.ErrorStatus(err), err.Error())
	}
	v := keysView{In: in, Keys: keys, Made: made, Scopes: p.sess.key.Scopes()}
	return p.render(status, view{Title: "Keys", Notice: notice, Error: problem, Page: v}, "keys")
}

// keys makes a key, or revokes the one the form names.
func (p *page) keys() error {
	f := p.r.PostForm
	if name := f.Get("revoke"); name != "" {
		if err := p.c.api.RevokeStoredKey(p.r.Context(), p.site, p.sess.key, name); err != nil {
			return p.keysPage(keysInput{}, api.ErrorStatus(err), "", err.Error(), nil)
		}
		return p.keysPage(keysInput{}, http.StatusOK, "Key "+name+" revoked: it no longer works, on any node.", "", nil)
	}
	in := keysInput{Name: strings.TrimSpace(f.Get("name")), Scopes: f.Get("scopes"), Label: strings.TrimSpace(f.Get("label")), Expires: strings.TrimSpace(f.Get("expires"))}
	req := &api.KeyRequest{Name: in.Name, Scopes: strings.Fields(in.Scopes), Label: in.Label}
	if in.Expires != "" {
		day, err := time.Parse(time.DateOnly, in.Expires)
		if err != nil {
			return p.keysPage(in, http.StatusBadRequest, "", "Give the day the key stops working as YYYY-MM-DD, or nothing for never.", nil)
		}
		req.Expires = day
	}
	made, err := p.c.api.AddStoredKey(p.r.Context(), p.site, p.sess.key, req)
	if err != nil {
		return p.keysPage(in, api.ErrorStatus(err), "", err.Error(), nil)
	}
	return p.keysPage(keysInput{}, http.StatusCreated, "Key "+made.Name+" made.", "", made)
}
