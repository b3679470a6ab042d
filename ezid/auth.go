package ezid

import (
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/sameorigin"
)

// who returns the caller that the request's credentials name, nil for
// someone not signed in, in EZID's order: a session cookie of login (a
// cookie that names no session is no credential), else the person whom
// the site's authentication (basic_auth before ark on the route) signed
// in, else a key of the API (Authorization: Bearer). Basic credentials
// that no authentication on the route verified are refused, 401: ark
// never checks a password itself.
func (c *call) who() (*api.Caller, error) {
	if sess, ok := c.session(); ok {
		return c.callerNamed(sess.Name, sess.Groups)
	}
	who, signedIn, err := c.s.api.Person(c.r)
	switch {
	case signedIn && err != nil:
		return nil, errForbidden
	case signedIn:
		return who, nil
	}
	auth := c.r.Header.Get("Authorization")
	if scheme, secret, _ := strings.Cut(auth, " "); strings.EqualFold(scheme, "Bearer") {
		who, err := c.s.api.AuthenticateOn(c.r.Context(), c.site, secret)
		if err != nil {
			return nil, errUnauthorized
		}
		return who, nil
	}
	if auth != "" {
		return nil, errUnauthorized
	}
	return nil, nil
}

// callerNamed returns the caller that a session or a download link names:
// a person (name "person:<name>", with groups) with the scopes the
// configuration gives them now, or a key of the API, configured or
// stored, that still works.
func (c *call) callerNamed(name string, groups []string) (*api.Caller, error) {
	if person, ok := strings.CutPrefix(name, api.PersonPrefix); ok {
		who, err := c.s.api.PersonNamed(person, groups)
		if err != nil {
			return nil, errForbidden
		}
		return who, nil
	}
	who, ok := c.s.api.CallerNamedOn(c.r.Context(), c.site, name)
	if !ok {
		return nil, errUnauthorized
	}
	return who, nil
}

// signedIn returns the caller as who does, refusing someone not signed in
// (401) and a change that a browser sent from another site or origin
// (403): Basic credentials and the session cookie go with every request
// a browser makes, whoever's page makes it.
func (c *call) signedIn() (*api.Caller, error) {
	if c.r.Method != http.MethodGet && c.r.Method != http.MethodHead || c.r.URL.Path == c.s.path+"/"+opLogin {
		if err := sameorigin.Check(c.r); err != nil {
			c.site.Logger().Info("EZID API: a change sent from another site is refused", zapReason(err))
			return nil, errForbidden
		}
	}
	who, err := c.who()
	if err != nil {
		return nil, err
	}
	if who == nil {
		return nil, errUnauthorized
	}
	return who, nil
}

// writerName returns the name EZID knows who by: a person's name without
// "person:", a key's name.
func writerName(who *api.Caller) string {
	return strings.TrimPrefix(who.Name(), api.PersonPrefix)
}
