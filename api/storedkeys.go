package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// Keys made at runtime live in the site's store (store.KeyStore), hashed
// as configured keys are, and are read from it each time they are used:
// a key revoked on one node is refused by the next request on every node
// sharing the store, with no cache to wait for. A configured key comes
// first: a secret is looked for in the configuration, then in the store,
// and a stored key named as a configured one is never used (making one
// is refused; a configured key added later under its name hides it).

// KeyRequest asks POST keys for a new key.
type KeyRequest struct {
	// The new key's name: one word, not a configured key's or another
	// stored key's.
	Name string `json:"name"`

	// Its scopes, each one that the caller's own scopes grant.
	Scopes []string `json:"scopes"`

	// What the key is for; optional.
	Label string `json:"label,omitempty"`

	// When it stops working (RFC 3339); none for never.
	Expires time.Time `json:"expires,omitzero"`
}

// NewKey answers POST keys: the key as stored, and its secret, which is
// shown this once and kept nowhere.
type NewKey struct {
	KeyInfo
	Secret string `json:"secret"`
}

// KeyInfo is a stored key as GET keys lists it: everything but its hash.
type KeyInfo struct {
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Label     string    `json:"label,omitempty"`
	Expires   time.Time `json:"expires,omitzero"`
	Expired   bool      `json:"expired,omitempty"`
	Created   time.Time `json:"created"`
	CreatedBy string    `json:"created_by"`
}

// keyInfo is k as listed at now.
func keyInfo(k *store.StoredKey, now time.Time) KeyInfo {
	return KeyInfo{Name: k.Name, Scopes: k.Scopes, Label: k.Label, Expires: k.Expires, Expired: k.Expired(now),
		Created: k.Created, CreatedBy: k.CreatedBy}
}

// AddStoredKey answers POST keys for who, an admin: a new key in the site's
// store, with a random secret, whose scopes are each granted by one of
// who's own.
func (a *API) AddStoredKey(ctx context.Context, s Site, who *Caller, req *KeyRequest) (*NewKey, error) {
	ss, err := a.keySession(s, who)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	if !req.Expires.IsZero() && !req.Expires.After(now) {
		return nil, refuse(http.StatusBadRequest, "key %s: expires %s is past", req.Name, req.Expires.Format(time.RFC3339))
	}
	if err := checkNewKeyName(req.Name); err != nil {
		return nil, err
	}
	if why := badChar(req.Label, false); why != "" {
		return nil, refuse(http.StatusBadRequest, "key %s: the label %s", req.Name, why)
	}
	if a.byName[req.Name] != nil {
		return nil, refuse(http.StatusConflict, "key %s: the configuration has a key of that name", req.Name)
	}
	secret := rand.Text()
	sum := sha256.Sum256([]byte(secret))
	k := store.StoredKey{Name: req.Name, Hash: hex.EncodeToString(sum[:]), Scopes: req.Scopes, Label: req.Label,
		Created: now, CreatedBy: ss.key.name}
	if !req.Expires.IsZero() {
		k.Expires = req.Expires.UTC().Truncate(time.Microsecond)
	}
	_, c, err := compileKey(APIKey{Name: k.Name, Hash: k.Hash, Scopes: k.Scopes})
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "%v", err)
	}
	for i, sc := range c.scopes {
		if !ss.key.grants(&sc) {
			return nil, refuse(http.StatusForbidden, "key %s may not give scope %s, which its own scopes do not include", ss.key.name, c.scopeText[i])
		}
	}
	if err := ss.store.AddKey(ctx, k); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, refuse(http.StatusConflict, "key %s: a stored key has that name", req.Name)
		}
		return nil, callError(err)
	}
	return &NewKey{KeyInfo: keyInfo(&k, now), Secret: secret}, nil
}

// StoredKeys answers GET keys for who, an admin: the keys of the site's
// store that who may revoke (every scope of theirs granted by one of
// who's own), expired ones included, by name. A limited admin is not
// shown wider keys, not even their names. Configured keys are not
// listed: the configuration lists them.
func (a *API) StoredKeys(ctx context.Context, s Site, who *Caller) ([]KeyInfo, error) {
	ss, err := a.keySession(s, who)
	if err != nil {
		return nil, err
	}
	keys, err := ss.store.Keys(ctx)
	if err != nil {
		return nil, callError(err)
	}
	now := time.Now()
	out := make([]KeyInfo, 0, len(keys))
	for i := range keys {
		if ss.key.widerScope(&keys[i]) == "" {
			out = append(out, keyInfo(&keys[i], now))
		}
	}
	return out, nil
}

// widerScope returns the first scope of the stored key sk that k's own
// scopes do not grant, "" when they grant them all: an admin may list and
// revoke only the keys it could have made. A stored key that the API
// would not make (written by hand into the store) has no scope that
// counts, and any admin may list and revoke it.
func (k *apiKey) widerScope(sk *store.StoredKey) string {
	_, c, err := compileKey(APIKey{Name: sk.Name, Hash: sk.Hash, Scopes: sk.Scopes})
	if err != nil {
		return ""
	}
	for i, sc := range c.scopes {
		if !k.grants(&sc) {
			return c.scopeText[i]
		}
	}
	return ""
}

// RevokeStoredKey answers DELETE keys/<name> for who, an admin whose scopes
// grant every scope of the key: the stored key called name stops working
// at once, on every node sharing the store. A configured key is revoked
// by taking it out of the configuration.
func (a *API) RevokeStoredKey(ctx context.Context, s Site, who *Caller, name string) error {
	ss, err := a.keySession(s, who)
	if err != nil {
		return err
	}
	keys, err := ss.store.Keys(ctx)
	if err != nil {
		return callError(err)
	}
	i := slices.IndexFunc(keys, func(k store.StoredKey) bool { return k.Name == name })
	if i < 0 {
		if a.byName[name] != nil {
			return refuse(http.StatusConflict, "key %s is configured, not stored: take it out of the configuration", name)
		}
		return refuse(http.StatusNotFound, "key %s: no such stored key", name)
	}
	if wider := ss.key.widerScope(&keys[i]); wider != "" {
		return refuse(http.StatusForbidden, "key %s may not revoke key %s, whose scope %s its own scopes do not include", ss.key.name, name, wider)
	}
	if err := ss.store.RevokeKey(ctx, name); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return refuse(http.StatusNotFound, "key %s: no such stored key", name)
		}
		return callError(err)
	}
	return nil
}

// keySession is the session of who for managing keys: an admin, on a
// site with a store.
func (a *API) keySession(s Site, who *Caller) (*session, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	if !ss.key.isAdmin() {
		return nil, refuse(http.StatusForbidden, "the key %s's scopes do not include admin, which managing keys needs", ss.key.name)
	}
	if ss.store == nil {
		return nil, refuse(http.StatusNotFound, "this site has no store to keep keys in: add a store to the ark block")
	}
	return ss, nil
}

// grants reports whether one of k's scopes grants everything that sc
// does.
func (k *apiKey) grants(sc *scope) bool {
	if sc.admin {
		return k.isAdmin()
	}
	return k.anyScope(sc.write, func(own *scope) bool {
		switch {
		case own.admin:
			return false
		case own.all:
			return true
		case sc.all:
			return false
		case sc.urn != "":
			return own.urn == sc.urn
		}
		return own.coversARKs(sc.naan, sc.name)
	})
}

// storedKey returns the stored key whose secret hashes to sum, compiled,
// if there is one that works now: not expired, and not named as a
// configured key.
func (a *API) storedKey(ctx context.Context, s Site, sum [sha256.Size]byte) (*apiKey, error) {
	st := s.Store()
	if st == nil {
		return nil, errWrongKey
	}
	k, err := st.KeyByHash(ctx, hex.EncodeToString(sum[:]))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errWrongKey
	case err != nil:
		return nil, storeError("", err)
	case k.Expired(time.Now()) || a.byName[k.Name] != nil:
		return nil, errWrongKey
	}
	_, c, err := compileKey(APIKey{Name: k.Name, Hash: k.Hash, Scopes: k.Scopes})
	if err != nil {
		return nil, errWrongKey // written by hand into the store: not a key the API would make
	}
	return c, nil
}

// serveKeys answers GET and POST keys.
func (c *apiCall) serveKeys() error {
	switch c.r.Method {
	case http.MethodGet:
		keys, err := c.a.StoredKeys(c.r.Context(), c.site, &Caller{c.key})
		if err != nil {
			return c.fail(err)
		}
		return writeJSON(c.w, http.StatusOK, keys)
	case http.MethodPost:
		var req KeyRequest
		if err := readJSON(c.w, c.r, &req); err != nil {
			return c.fail(err)
		}
		k, err := c.a.AddStoredKey(c.r.Context(), c.site, &Caller{c.key}, &req)
		if err != nil {
			return c.fail(err)
		}
		c.w.Header().Set("Cache-Control", "no-store")
		return writeJSON(c.w, http.StatusCreated, k)
	}
	c.w.Header().Set("Allow", "GET, POST")
	return writeAPIError(c.w, http.StatusMethodNotAllowed, "use GET or POST")
}

// serveKey answers DELETE keys/<name>, name escaped as in the path.
func (c *apiCall) serveKey(escaped string) error {
	name, err := url.PathUnescape(escaped)
	if err != nil {
		return writeAPIError(c.w, http.StatusBadRequest, "keys/"+escaped+": not a key's name: "+err.Error())
	}
	if err := c.a.RevokeStoredKey(c.r.Context(), c.site, &Caller{c.key}, name); err != nil {
		return c.fail(err)
	}
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}

// AuthenticateOn returns the caller whose key is secret on site s: a
// configured key, or a key of s's store that works now. An unknown key
// is an error, the same for every wrong key; a store that cannot answer
// is another (503).
func (a *API) AuthenticateOn(ctx context.Context, s Site, secret string) (*Caller, error) {
	c, err := a.Authenticate(secret)
	if !errors.Is(err, errWrongKey) {
		return c, err
	}
	k, err := a.storedKey(ctx, s, sha256.Sum256([]byte(strings.TrimSpace(secret))))
	if err != nil {
		return nil, err
	}
	return &Caller{k}, nil
}

// CallerNamedOn returns the caller whose key is called name on site s,
// configured or kept in s's store and working now, if there is one: the
// console finds its signed-in key again this way with each request, so
// that a stored key revoked or expired ends its sessions at once.
func (a *API) CallerNamedOn(ctx context.Context, s Site, name string) (*Caller, bool) {
	if c, ok := a.CallerNamed(name); ok {
		return c, true
	}
	st := s.Store()
	if st == nil {
		return nil, false
	}
	keys, err := st.Keys(ctx)
	if err != nil {
		return nil, false
	}
	i := slices.IndexFunc(keys, func(k store.StoredKey) bool { return k.Name == name })
	if i < 0 || keys[i].Expired(time.Now()) {
		return nil, false
	}
	_, c, err := compileKey(APIKey{Name: name, Hash: keys[i].Hash, Scopes: keys[i].Scopes})
	if err != nil {
		return nil, false
	}
	return &Caller{c}, true
}
