package api

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// Caller is an API key that a request was made with, once checked, or a
// person whom the site's authentication signed in (people.go): what
// the API's Go functions (Get, Put, Patch, Withdraw, Mint, Import,
// Export, Stats, ListIDs, Retarget, Undo, Changes) take, so that a page of
// the site such as a console acts with a key's name and scopes without an
// HTTP request to the API.
type Caller struct{ key *apiKey }

// Authenticate returns the caller whose key is secret; an unknown key is
// an error, the same for every wrong key.
func (a *API) Authenticate(secret string) (*Caller, error) {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return nil, errNoKey
	}
	sum := sha256.Sum256([]byte(secret))
	k, ok := a.keys[string(sum[:])]
	if !ok {
		return nil, errWrongKey
	}
	return &Caller{k}, nil
}

// Name returns the name of the caller's key, or "person:<name>", which
// the history records.
func (c *Caller) Name() string { return c.key.name }

// IsAdmin reports whether the caller's key has the admin scope, which
// managing keys needs.
func (c *Caller) IsAdmin() bool { return c.key.isAdmin() }

// MayRead reports whether the caller may read the normalized identifier
// key; MayWrite whether it may change it.
func (c *Caller) MayRead(key string) bool  { return c.key.may(false, key) }
func (c *Caller) MayWrite(key string) bool { return c.key.may(true, key) }

// MayMint reports whether the caller may mint under shoulder
// ("ark:12345/x5", or a bare NAAN), by the rule Mint refuses by.
func (c *Caller) MayMint(shoulder string) bool {
	sh, err := parseShoulder(shoulder)
	return err == nil && c.key.mayPrefix(true, sh.naan, sh.sh)
}

// MayWriteSome reports whether the caller may write some identifier: one
// of the ranges that Retarget changes (ranges.go). For a caller who may
// not, a retarget finds nothing to change, and an import or an undo is
// refused at its first identifier.
func (c *Caller) MayWriteSome() bool { return len(c.key.ranges(true, "")) > 0 }

// ErrorStatus returns the HTTP status that the API answers err with, an
// error of one of its Go functions: 400 for a bad request, 403, 404, 409,
// 412, 413, 503 for a store that fails. The error's text is the reason
// the API gives.
func ErrorStatus(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status
	}
	return storeError("", err).status
}

// session is what every call of the API works with, in process or over
// HTTP: the site, its resolver and store of the moment, and the caller's
// key with its scopes.
type session struct {
	a     *API
	site  Site
	rs    *resolve.Resolver
	store store.Store
	key   *apiKey
}

// session returns the session of who on site s: 503 while the
// configuration is replaced.
func (a *API) session(s Site, who *Caller) (*session, error) {
	rs := s.Resolver()
	if rs == nil {
		return nil, refuse(http.StatusServiceUnavailable, "the configuration is being replaced")
	}
	return &session{a: a, site: s, rs: rs, store: s.Store(), key: who.key}, nil
}

// managed reports whether the store answers for key, a normalized
// identifier, on this site: an ARK of one of its NAANs or a URN, that no
// table assigns. GET id/<id> answers only for those.
func (ss *session) managed(key string) bool {
	if naan, ok := strings.CutPrefix(key, "ark:"); ok {
		naan, _, _ = strings.Cut(naan, "/")
		if !ss.rs.Ours(naan) {
			return false
		}
	}
	_, assigned := ss.rs.Table().SourceOf(key)
	return !assigned
}

// managedKey parses an identifier and checks that the key may read it,
// or write it, and that the store may hold it: an identifier of this site
// that no table assigns, and that could be answered. Every write of the
// API checks its identifier so.
func (ss *session) managedKey(raw string, write bool) (string, error) {
	key, naan, err := table.AssignableKey(raw)
	if err != nil {
		return "", refuse(http.StatusBadRequest, "%v", err)
	}
	if _, path, _ := strings.Cut(key, "/"); urlpath.DottedSegment(path) {
		// It could never be answered: the rule of segments.go refuses it.
		return "", refuse(http.StatusBadRequest, "%s: %v", key, urlpath.ErrDotSegment)
	}
	if naan != "" && !ss.rs.Ours(naan) {
		return "", refuse(http.StatusBadRequest, "%s: NAAN %s is not this site's: add it with naan", key, naan)
	}
	if !ss.key.may(write, key) {
		access := "read"
		if write {
			access = "write"
		}
		return "", refuse(http.StatusForbidden, "%s may not %s %s", ss.key.who(), access, key)
	}
	if by, ok := ss.rs.Table().SourceOf(key); ok {
		return "", refuse(http.StatusConflict, "%s is assigned by %s: change it there, not through the API", key, by)
	}
	return key, nil
}

// callError is err as the API answers it: a refusal as it is, anything
// else the store's failure.
func callError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return storeError("", err)
}

// failed is err as the API's Go functions return it: nil, or a refusal
// whose status ErrorStatus gives and whose text is the API's reason.
func failed(err error) error {
	if err == nil {
		return nil
	}
	return callError(err)
}
