package api

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-ark/caddy-ark/internal/caddyfileargs"
	"github.com/caddy-ark/caddy-ark/internal/sitesecret"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
)

// EZID turns on EZID's API, version 2, for the site's identifiers, beside
// this API and as one more caller of it: the same people, scopes,
// checks and history. The ezid package serves it; docs/moving-from-ezid.md
// describes it.
type EZID struct {
	// The path under which EZID's API answers (<path>/id/<identifier>,
	// <path>/shoulder/<shoulder>, <path>/login, ...): "" for the site's
	// root, where EZID's clients expect it, or a path such as /ezid.
	Path string `json:"path,omitempty"`

	// How long a session cookie of <path>/login stays valid, as EZID's
	// does: default 7 days.
	Session caddy.Duration `json:"session,omitempty"`

	// The secret that signs session cookies and download links
	// (HMAC-SHA256), at least 16 bytes; placeholders such as
	// {env.EZID_SECRET} are replaced. Nodes serving one EZID API must all
	// have the same one, or share Caddy's storage, so that a cookie or a
	// link of one is taken by every other. Default: a random secret made
	// once and kept in Caddy's storage (ark/ezid/secret).
	Secret string `json:"secret,omitempty"`
}

// DefaultEZIDSession is how long an EZID session lasts by default, as
// EZID's server keeps one.
const DefaultEZIDSession = 7 * 24 * time.Hour

// SessionLength returns how long a session lasts.
func (e *EZID) SessionLength() time.Duration {
	if e.Session <= 0 {
		return DefaultEZIDSession
	}
	return time.Duration(e.Session)
}

// check checks the path.
func (e *EZID) check() error {
	if e.Path == "" {
		return nil
	}
	if !strings.HasPrefix(e.Path, "/") || strings.HasSuffix(e.Path, "/") || isARKOrURNPath(e.Path) {
		return fmt.Errorf("api: ezid %q: give no path (the site's root) or one such as /ezid, starting with / and not ending with one, not an identifier's", e.Path)
	}
	return nil
}

// ezidSubdirectives are the ezid block's subdirectives.
var ezidSubdirectives = []string{"session", "secret"}

// unmarshalEZID reads the api block's ezid [<path>] [{ session <duration>;
// secret <secret> }].
func unmarshalEZID(d *caddyfile.Dispenser) (*EZID, error) {
	e := &EZID{}
	if d.NextArg() {
		e.Path = d.Val()
		if d.NextArg() {
			return nil, d.Errf("api: ezid: want at most one path, got %q too", d.Val())
		}
	}
	if err := e.check(); err != nil {
		return nil, d.Err(err.Error())
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "session":
			if err := unmarshalSession(d, "ezid", time.Minute, "1m", "168h", &e.Session); err != nil {
				return nil, err
			}
		case "secret":
			if err := caddyfileargs.One(d, &e.Secret); err != nil {
				return nil, err
			}
			if !strings.Contains(e.Secret, "{") && len(e.Secret) < sitesecret.MinLength {
				return nil, d.Errf("api: ezid: secret must be at least %d bytes long", sitesecret.MinLength)
			}
		default:
			return nil, d.Errf("api: ezid: unknown subdirective %q%s", d.Val(), suggest.DidYouMean(d.Val(), ezidSubdirectives))
		}
	}
	return e, nil
}
