package api

import (
	"fmt"
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

// CallerNamed returns the caller whose key is called name in the API's
// current configuration, if there is one: the console finds its signed-in
// key again this way with each request.
func (a *API) CallerNamed(name string) (*Caller, bool) {
	k, ok := a.byName[name]
	if !ok {
		return nil, false
	}
	return &Caller{k}, true
}

// Callers returns the callers of every key of the API's configuration.
func (a *API) Callers() []*Caller {
	callers := make([]*Caller, 0, len(a.byName))
	for _, k := range a.byName {
		callers = append(callers, &Caller{k})
	}
	return callers
}

// Hash returns the SHA-256 hash of the caller's key: a key whose secret
// is replaced under the same name has another.
func (c *Caller) Hash() []byte { return []byte(c.key.hash) }

// Scopes returns the scopes of the caller's key, as configured.
func (c *Caller) Scopes() []string { return c.key.scopeText }

// BodyLimit returns the largest request body of an import: max_body.
func (a *API) BodyLimit() int64 { return a.maxBody() }
