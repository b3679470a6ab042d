package api

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// UI configures the web console (package console), which answers at
// <prefix>/ui/ of the API.
type UI struct {
	// How long a sign-in lasts before the console asks for the key again.
	// Default 8h; at most 30 days.
	Session caddy.Duration `json:"session,omitempty"`

	// A file holding the secret that signs the console's session cookies
	// and form tokens, at least 32 bytes. Give the same file to every node
	// of a site served by several; without it, each Caddy process makes a
	// random secret when it starts, and a restart signs everyone out (a
	// reload does not).
	SecretFile string `json:"secret_file,omitempty"`
}

// DefaultSession is the default UI.Session.
const DefaultSession = 8 * time.Hour

// maxSession bounds UI.Session.
const maxSession = 30 * 24 * time.Hour

// check checks the console's configuration; the secret file is read by
// the console itself.
func (u *UI) check() error {
	if d := time.Duration(u.Session); d != 0 && (d < time.Second || d > maxSession) {
		return fmt.Errorf("api: ui: session %s: give a length between 1s and %s", d, maxSession)
	}
	return nil
}

// SessionLength returns how long a sign-in lasts.
func (u *UI) SessionLength() time.Duration {
	if u.Session == 0 {
		return DefaultSession
	}
	return time.Duration(u.Session)
}

// Key is a key of the API as the console holds it: found once by its
// secret, at sign-in, then by its name, with each request.
type Key struct{ k *apiKey }

// KeyBySecret returns the key whose secret is secret, if there is one.
func (a *API) KeyBySecret(secret string) (Key, bool) {
	sum := sha256.Sum256([]byte(secret))
	k, ok := a.keys[string(sum[:])]
	return Key{k}, ok
}

// KeyNamed returns the key called name in the API's current
// configuration, if there is one.
func (a *API) KeyNamed(name string) (Key, bool) {
	k, ok := a.byName[name]
	return Key{k}, ok
}

// Name returns the key's name.
func (k Key) Name() string { return k.k.name }

// Hash returns the SHA-256 hash of the key's secret: a key whose secret
// is replaced under the same name has another.
func (k Key) Hash() []byte { return []byte(k.k.hash) }

// Scopes returns the key's scopes, as configured.
func (k Key) Scopes() []string { return k.k.scopeText }

// MayWrite reports whether the key may write the normalized identifier
// key or, for a shoulder such as "ark:12345/x5", every identifier under
// it.
func (k Key) MayWrite(key string) bool { return k.k.may(true, key) }

// ServeAs answers a request for the API as Serve does, made with key k
// instead of the key that r carries: the console's own requests.
func (a *API) ServeAs(w http.ResponseWriter, r *http.Request, route, rest string, k Key, s Site) error {
	return a.serve(w, r, route, rest, k.k, s)
}

// BodyLimit returns the largest request body of an import: max_body.
func (a *API) BodyLimit() int64 { return a.maxBody() }
